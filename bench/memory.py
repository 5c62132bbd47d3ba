"""Memory and the prompt cache: a session in which memory is written keeps one system prompt,
byte for byte, so the provider's cached prefix holds; the next session's prompt carries the
memory."""

from __future__ import annotations

import tempfile
from pathlib import Path

from bench.figures import Figure
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall
from tests.support.raw import RawAgent

WRITES = 5
MODEL = "anthropic:claude-bench"


def measure(env: dict[str, str]) -> list[Figure]:
    with tempfile.TemporaryDirectory() as scratch, FakeLLM() as fake:
        home, workspace = Path(scratch) / "home", Path(scratch) / "workspace"
        home.mkdir()
        workspace.mkdir()
        run_env = {**env, **fake.environment(MODEL), "HERON_HOME": str(home)}
        run_env["HERON_MODE"] = "full-access"  # memory writes ask in the other modes
        for n in range(WRITES):
            entry = {"file": "notes", "action": "add", "text": f"Fact number {n} about the work."}
            fake.enqueue(Reply((ToolCall("memory", entry),)), Reply((Text("noted"),)))
        fake.enqueue(Reply((Text("hello"),)))
        with RawAgent(run_env, check_schema=False) as client:
            client.initialize()
            session_id = client.new_session(workspace)
            for n in range(WRITES):
                client.prompt(session_id, f"remember fact {n}")
            client.prompt(client.new_session(workspace), "hello")
        systems = [r.body["system"][0]["text"] for r in fake.requests]
    within, following = systems[:-1], systems[-1]
    carried = all(f"Fact number {n}" in following for n in range(WRITES))
    how = f"{len(within)} requests of a session that wrote memory {WRITES} times; the next "
    how += f"session's prompt {'carries' if carried else 'DOES NOT carry'} all {WRITES} entries"
    return [
        Figure(
            "distinct system prompts within a session that wrote memory",
            len(set(within)),
            "",
            1,
            how,
        )
    ]
