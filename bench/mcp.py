"""MCP figures: what MCP servers cost `session/new`, the first prompt, and the agent's exit."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.figures import Figure
from bench.startup import LOADED_S
from tests.support.raw import RawAgent

ROOT = Path(__file__).resolve().parents[1]
RUNS = 5
CONNECT_TIMEOUT = 2.0


def _server(name: str, mode: str) -> dict[str, Any]:
    return {
        "name": name,
        "command": sys.executable,
        "args": ["-m", "tests.support.mcp_server", mode],
        "env": [{"name": "PYTHONPATH", "value": str(ROOT)}],
    }


def _one_run(
    env: dict[str, str], workspace: Path, servers: list[dict[str, Any]]
) -> tuple[float, float, float]:
    """(session/new, first prompt answered after session/new, stdin closed -> exit), seconds."""
    with RawAgent(env, check_schema=False) as agent:
        agent.initialize()
        time.sleep(LOADED_S)
        started = time.perf_counter()
        response = agent.request("session/new", {"cwd": str(workspace), "mcpServers": servers})
        opened = time.perf_counter()
        session_id = response["result"]["sessionId"]
        stop, _ = agent.prompt(session_id, "hello")
        answered = time.perf_counter()
        assert stop == "end_turn"
        closing = time.perf_counter()
        assert agent.close(timeout=20) == 0
        return opened - started, answered - opened, time.perf_counter() - closing


def measure(env: dict[str, str]) -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        (home / "config.toml").write_text(f"[mcp]\nconnect_timeout = {CONNECT_TIMEOUT}\n")
        run_env = {**env, "HERON_HOME": str(home)}
        broken = [_server("ok", "stdio"), _server("dies", "exit"), _server("hangs", "hang")]
        healthy = [_server("ok", "stdio")]
        with_broken = [_one_run(run_env, Path(tmp), broken) for _ in range(RUNS)]
        with_healthy = [_one_run(run_env, Path(tmp), healthy) for _ in range(RUNS)]
    new = statistics.median(r[0] for r in with_broken)
    first_broken = statistics.median(r[1] for r in with_broken)
    first_healthy = statistics.median(r[1] for r in with_healthy)
    exit_healthy = statistics.median(r[2] for r in with_healthy)
    return [
        Figure(
            "`session/new` response, 3 MCP servers (one exits at start, one hangs)",
            new * 1000,
            "ms",
            50,
            f"median of {RUNS}, sent {LOADED_S:g} s after `initialize`; servers connect in the "
            "background",
        ),
        Figure(
            "first prompt, one healthy stdio MCP server",
            first_healthy * 1000,
            "ms",
            None,
            f"median of {RUNS}; sent right after `session/new`, waits for the server's tools",
        ),
        Figure(
            f"first prompt, one MCP server hangs (connect timeout {CONNECT_TIMEOUT:g} s)",
            first_broken * 1000,
            "ms",
            (CONNECT_TIMEOUT + 0.25) * 1000,
            f"median of {RUNS}; the wait ends at the connect timeout",
        ),
        Figure(
            "agent exit with a stdio MCP server connected",
            exit_healthy * 1000,
            "ms",
            None,
            f"median of {RUNS}; stdin closed -> process gone, server group stopped",
        ),
    ]
