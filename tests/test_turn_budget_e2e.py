"""A turn that reaches its request limit ends well, for every provider over real stdio: the
last requests carry a budget note, then one request with tools off asks for a summary, which
the editor shows before the turn ends with ``max_turn_requests``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.fake_llm import MODELS, FakeLLM, Reply, Text, ToolCall
from tests.support.raw import RawAgent

TOOL_CHOICE_NONE = {"anthropic": {"type": "none"}, "openai": "none", "openai-chat": "none"}


def test_the_request_limit_ends_with_a_summary_made_without_tools(
    provider: str, agent_env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM
) -> None:
    (heron_home / "config.toml").write_text("max_turn_requests = 3\n")
    read = ToolCall("read_file", {"path": "README.md"})
    fake.enqueue(
        Reply((read,)),
        Reply((read,)),
        Reply((read,)),
        Reply((Text("Read the README three times; the summary of it remains."),)),
    )
    agent = RawAgent({**agent_env, **fake.environment(MODELS[provider])})
    with agent:
        session_id = agent.start_session(workspace)
        stop, updates = agent.prompt(session_id, "summarise the readme")
    assert stop == "max_turn_requests"
    bodies = [r.body for r in fake.requests]
    assert len(bodies) == 4
    assert ["tool_choice" in b for b in bodies] == [False, False, False, True]
    assert bodies[-1]["tool_choice"] == TOOL_CHOICE_NONE[provider]
    sent = [json.dumps(b) for b in bodies]
    assert "[Heron: this is model request" not in sent[0] + sent[1]
    assert "model request 3 of 3" in sent[2] and "used all 3" in sent[3]
    assert "model request 3 of 3" not in sent[3]  # a note lives in one request only
    shown = "".join(
        u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"
    )
    assert shown == "Read the README three times; the summary of it remains."
