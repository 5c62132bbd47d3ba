"""Start-up figures: spawn -> initialize, session/new latency, peak RSS once idle."""

from __future__ import annotations

import json
import statistics
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from bench.figures import Figure

HERON = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "heron")
HERON_ACP = (HERON, "acp")  # what editors run; `python -m bench --agent` measures another
MODEL_URL = "{url}"  # in another agent's command: the fake model server's address
NO_MODEL_URL = "http://127.0.0.1:9"  # where no model server runs (the start-up rows ask none)


def pointed_at(agent: Sequence[str], url: str) -> tuple[str, ...]:
    """``agent``'s command with ``{url}`` replaced by the model server's address: for an agent
    that reads its endpoint from its own options rather than from ANTHROPIC_BASE_URL or
    OPENAI_BASE_URL."""
    return tuple(part.replace(MODEL_URL, url) for part in agent)


RUNS = 15
# A method's own figure is taken this long after `initialize`: the server loads once
# `initialize` is answered, and a request sent at once waits for that (the start-up rows).
LOADED_S = 1.0


def call_agent(
    stdin: IO[bytes], stdout: IO[bytes], request_id: int, method: str, params: dict[str, Any]
) -> dict[str, Any]:
    stdin.write(
        json.dumps(
            {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        ).encode()
        + b"\n"
    )
    stdin.flush()
    while True:
        message = json.loads(stdout.readline())
        if message.get("id") == request_id:
            return message


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc status")


def one_run(
    env: dict[str, str], workspace: Path, agent: Sequence[str] = HERON_ACP, pause: float = 0.0
) -> tuple[float, float, float, float]:
    """(spawn -> initialize answered, session/new's own time, peak RSS once idle, a second
    session/new's own time once the first is ready); session/new is sent at once after
    initialize's answer, or after ``pause`` seconds."""
    started = time.perf_counter()
    proc = subprocess.Popen(list(agent), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert proc.stdin and proc.stdout
    init = call_agent(
        proc.stdin, proc.stdout, 1, "initialize", {"protocolVersion": 1, "clientCapabilities": {}}
    )
    initialized = time.perf_counter()
    assert "result" in init, init
    time.sleep(pause)
    before_new = time.perf_counter()
    new = call_agent(
        proc.stdin, proc.stdout, 2, "session/new", {"cwd": str(workspace), "mcpServers": []}
    )
    session_new = time.perf_counter() - before_new
    assert "result" in new, new
    time.sleep(1.0)  # idle: the background warm-up has finished
    rss = peak_rss_mb(proc.pid)
    before_second = time.perf_counter()
    second = call_agent(
        proc.stdin, proc.stdout, 3, "session/new", {"cwd": str(workspace), "mcpServers": []}
    )
    second_new = time.perf_counter() - before_second
    assert "result" in second, second
    proc.stdin.close()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:  # another agent may outlive its input (codex-acp does)
        proc.kill()
        proc.wait()
    proc.stdout.close()
    return initialized - started, session_new, rss, second_new


def measure(env: dict[str, str], agent: Sequence[str] = HERON_ACP) -> list[Figure]:
    agent = pointed_at(agent, NO_MODEL_URL)
    with tempfile.TemporaryDirectory() as tmp:
        runs = [one_run(env, Path(tmp), agent) for _ in range(RUNS)]
    init, new, rss, second = (sorted(column) for column in zip(*runs, strict=True))
    ready = sorted(i + n for i, n, _, _ in runs)
    figures = [
        Figure(
            "spawn -> `initialize` response",
            statistics.median(init) * 1000,
            "ms",
            45,
            f"median of {RUNS} fresh processes",
        ),
        Figure(
            "`session/new` response, sent at once after `initialize`",
            statistics.median(new) * 1000,
            "ms",
            60,
            f"median of {RUNS}, first session of a fresh process; from sending it to its response",
        ),
        Figure(
            "a later `session/new` response, same process",
            statistics.median(second) * 1000,
            "ms",
            20,
            f"median of {RUNS}; the second session, sent once the first is ready and 1 s idle",
        ),
        Figure(
            "spawn -> `session/new` response, sent at once after `initialize`",
            statistics.median(ready) * 1000,
            "ms",
            75,
            f"median of {RUNS}; what an editor that opens a session at start waits for in all",
        ),
        Figure(
            f"`session/new` response, sent {LOADED_S:g} s after `initialize`",
            statistics.median(late_session_new(env, agent)) * 1000,
            "ms",
            30,
            f"median of {RUNS}, first session of a fresh process; the server loaded meanwhile",
        ),
        Figure(
            "peak RSS, idle after `session/new`",
            statistics.median(rss),
            "MB",
            60,
            "VmHWM after 1 s idle (warm-up done)",
        ),
    ]
    if tuple(agent) != HERON_ACP:
        return figures
    return [*figures, session_new_with_large_context(env)]


def late_session_new(env: dict[str, str], agent: Sequence[str]) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        return [one_run(env, Path(tmp), agent, pause=LOADED_S)[1] for _ in range(RUNS)]


def session_new_with_large_context(env: dict[str, str]) -> Figure:
    """`session/new` in a repository whose AGENTS.md, CLAUDE.md and .cursorrules are large."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        (repo / ".git").mkdir(parents=True)
        for name in ("AGENTS.md", "CLAUDE.md", ".cursorrules"):
            (repo / name).write_text(
                "Follow the project conventions carefully.\n" * 5000
            )  # ~200 KB each
        runs = [one_run(env, repo, pause=LOADED_S)[1] for _ in range(RUNS)]
    how = (
        f"median of {RUNS}, sent {LOADED_S:g} s after `initialize`; three ~200 KB context files "
        "(read at the first prompt, not here)"
    )
    return Figure(
        "`session/new` response, large context files", statistics.median(runs) * 1000, "ms", 30, how
    )
