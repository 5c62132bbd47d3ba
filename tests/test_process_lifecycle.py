"""The process as an editor sees it: stdout purity, exit on end of input, no orphans."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.support.raw import RawAgent
from tests.support.scripted_model import scripted


@pytest.fixture
def env(agent_env: dict[str, str]) -> dict[str, str]:
    """The echo model: ``agent`` needs no model server here."""
    return agent_env


def test_eof_exits_zero_at_once(agent: RawAgent) -> None:
    started = time.monotonic()
    assert agent.close(timeout=5) == 0
    # how fast: make bench (bench/mcp.py); here, that it waits for nothing
    assert time.monotonic() - started < 3.0


def test_eof_during_a_turn_cancels_it_and_exits(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    env = scripted(agent_env, tmp_path, [{"text": "busy"}, {"sleep": 60}])
    with RawAgent(env) as agent:
        agent.turn_under_way(workspace, "go", request_id=7)
        started = time.monotonic()
        assert agent.close(timeout=5) == 0
        assert time.monotonic() - started < 3.0  # the turn would sleep a minute


def test_stdout_carries_only_acp_and_logs_go_to_stderr_and_the_log_file(
    agent_env: dict[str, str], workspace: Path, heron_home: Path
) -> None:
    agent_env["HERON_TRACE"] = "1"
    with RawAgent(agent_env) as agent:  # its reader fails on any non-JSON line
        session_id = agent.start_session(workspace)
        agent.request(
            "session/prompt",
            {"sessionId": session_id, "prompt": [{"type": "text", "text": "hello é中文 😀"}]},
        )
        assert agent.close() == 0
    assert b"recv" in agent.stderr  # the trace shows raw messages on stderr
    log = (heron_home / "logs" / "heron.log").read_text()
    assert '"method":"session/new"' in log.replace(" ", "")


@pytest.mark.parametrize(
    "config", ["model = [unclosed\n", "x = " + "[" * 5_000 + "]" * 5_000 + "\n"]
)
def test_a_bad_config_file_is_reported_by_session_new(
    agent_env: dict[str, str], workspace: Path, heron_home: Path, config: str
) -> None:
    (heron_home / "config.toml").write_text(config)
    with RawAgent(agent_env) as agent:
        agent.initialize()
        error = agent.request("session/new", {"cwd": str(workspace), "mcpServers": []})["error"]
        assert "config.toml" in error["message"]
    assert b"Traceback" not in agent.stderr
