"""Session figures: loading a 1,000-message session, listing over 1,000 sessions."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import anyio

from agent_core.messages import AssistantMessage, TextPart, UserMessage
from agent_core.sessions.sqlite import SqliteSessionStore
from agent_core.sessions.store import SessionRecord
from bench.figures import Figure
from tests.support.raw import RawAgent

MESSAGES = 1000
SESSIONS = 1000
SAMPLES = 5


async def _populate(home: Path, workspace: Path) -> str:
    store = SqliteSessionStore(home / "sessions.db")
    await store.create(SessionRecord("big", workspace, title="a long session"))
    messages = []
    transcript = []
    for n in range(MESSAGES // 2):
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
    await store.append("big", messages, transcript)
    for n in range(SESSIONS - 1):
        await store.create(SessionRecord(f"s{n:04}", workspace, title=f"session {n}"))
    await store.close()
    return "big"


def measure(env: dict[str, str]) -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp:
        home, workspace = Path(tmp) / "home", Path(tmp) / "workspace"
        home.mkdir()
        workspace.mkdir()
        session_id = anyio.run(_populate, home, workspace)
        env = {**env, "HERON_HOME": str(home)}
        loads, lists = [], []
        for _ in range(SAMPLES):
            with RawAgent(env, check_schema=False) as agent:
                agent.initialize()
                started = time.perf_counter()
                response = agent.request(
                    "session/load",
                    {"sessionId": session_id, "cwd": str(workspace), "mcpServers": []},
                    check=False,
                )
                loads.append(time.perf_counter() - started)
                assert "result" in response, response
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
            f"replays {MESSAGES:,} updates first; median of {SAMPLES} fresh processes",
        ),
        Figure(
            f"`session/list` over {SESSIONS:,} sessions (first page of 50)",
            statistics.median(lists) * 1000,
            "ms",
            50,
            f"median of {SAMPLES}",
        ),
    ]
