"""Session figures: loading a 1,000-message session, listing over 1,000 sessions."""

from __future__ import annotations

import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import anyio

from agent_core.messages import AssistantMessage, TextPart, UserMessage
from agent_core.sessions.sqlite import SqliteSessionStore
from agent_core.sessions.store import SessionRecord
from bench.figures import Figure
from bench.startup import HERON, LOADED_S, call_agent
from tests.support.raw import RawAgent

MESSAGES = 1000
LONG = 20_000  # a long session's messages: load time should grow linearly
SESSIONS = 1000
SAMPLES = 5


async def _populate(home: Path, workspace: Path) -> str:
    store = SqliteSessionStore(home / "sessions.db")
    await _conversation(store, "big", workspace, MESSAGES)
    await _conversation(store, "long", workspace, LONG)
    for n in range(SESSIONS - 1):
        await store.create(SessionRecord(f"s{n:04}", workspace, title=f"session {n}"))
    await store.close()
    return "big"


async def _conversation(
    store: SqliteSessionStore, session_id: str, workspace: Path, size: int
) -> None:
    await store.create(SessionRecord(session_id, workspace, title="a long session"))
    messages = []
    transcript = []
    for n in range(size // 2):
        question, answer = f"question {n}: " + "words " * 20, f"answer {n}: " + "more words " * 40
        messages += [
            UserMessage((TextPart(question),)),
            AssistantMessage((TextPart(answer),), f"m{n}"),
        ]
        transcript += [
            {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": question}},
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": f"m{n}",
                "content": {"type": "text", "text": answer},
            },
        ]
    await store.append(session_id, messages, transcript)


def _load(env: dict[str, str], session_id: str, workspace: Path, pause: float = LOADED_S) -> float:
    """Spawn, initialize, wait ``pause`` seconds (0: sent at once; by default the server has
    loaded), then time ``session/load`` to its response. The replayed updates are read as
    bytes, not parsed, so that the figure is the agent's, not this client's."""
    proc = subprocess.Popen([HERON, "acp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        initialize = {"protocolVersion": 1, "clientCapabilities": {}}
        call_agent(proc.stdin, proc.stdout, 1, "initialize", initialize)
        time.sleep(pause)
        params = {"sessionId": session_id, "cwd": str(workspace), "mcpServers": []}
        request = {"jsonrpc": "2.0", "id": 2, "method": "session/load", "params": params}
        started = time.perf_counter()
        proc.stdin.write(json.dumps(request).encode() + b"\n")
        proc.stdin.flush()
        for line in proc.stdout:
            if line.startswith(b'{"jsonrpc":"2.0","id":2,'):
                assert b'"result"' in line, line[:300]
                return time.perf_counter() - started
        raise AssertionError("the agent ended before answering session/load")
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
        proc.stdout.close()


def measure(env: dict[str, str]) -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp:
        home, workspace = Path(tmp) / "home", Path(tmp) / "workspace"
        home.mkdir()
        workspace.mkdir()
        session_id = anyio.run(_populate, home, workspace)
        env = {**env, "HERON_HOME": str(home)}
        loads, long_loads, lists, at_once, long_at_once = [], [], [], [], []
        for _ in range(SAMPLES):
            long_loads.append(_load(env, "long", workspace))
            loads.append(_load(env, session_id, workspace))
            long_at_once.append(_load(env, "long", workspace, pause=0.0))
            at_once.append(_load(env, session_id, workspace, pause=0.0))
            with RawAgent(env, check_schema=False) as agent:
                agent.initialize()
                time.sleep(LOADED_S)
                started = time.perf_counter()
                listed = agent.request("session/list", {"cwd": str(workspace)})
                lists.append(time.perf_counter() - started)
                assert len(listed["result"]["sessions"]) == 50
    return [
        Figure(
            f"`session/load` of a {MESSAGES:,}-message session, to its response",
            statistics.median(loads) * 1000,
            "ms",
            150,
            f"replays {MESSAGES:,} updates first; median of {SAMPLES} fresh processes, each "
            f"{LOADED_S:g} s after `initialize`",
        ),
        Figure(
            f"`session/load` of a {LONG:,}-message session, to its response",
            statistics.median(long_loads) * 1000,
            "ms",
            300,
            f"replays {LONG:,} updates first; median of {SAMPLES} fresh processes, each "
            f"{LOADED_S:g} s after `initialize`",
        ),
        Figure(
            f"`session/load` of a {MESSAGES:,}-message session, sent at once after `initialize`",
            statistics.median(at_once) * 1000,
            "ms",
            100,
            f"to its response, every update replayed; median of {SAMPLES} fresh processes, "
            "sent the moment `initialize` answers",
        ),
        Figure(
            f"`session/load` of a {LONG:,}-message session, sent at once after `initialize`",
            statistics.median(long_at_once) * 1000,
            "ms",
            300,
            f"to its response, every update replayed; median of {SAMPLES} fresh processes, "
            "sent the moment `initialize` answers",
        ),
        Figure(
            f"`session/list` over {SESSIONS:,} sessions (first page of 50)",
            statistics.median(lists) * 1000,
            "ms",
            50,
            f"median of {SAMPLES}, each {LOADED_S:g} s after `initialize`",
        ),
    ]
