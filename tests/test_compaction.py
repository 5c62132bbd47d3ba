"""Compaction: what is cleared, what is summarised, what stays verbatim, and the turn goes on."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent_core.context.compaction import (
    CLEARED,
    SUMMARY_PREFIX,
    clear_old_tool_outputs,
    split_for_summary,
)
from agent_core.errors import ContextOverflow
from agent_core.events import CompactionUpdated, TurnEnded
from agent_core.messages import (
    AssistantMessage,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UserMessage,
)
from agent_core.models.base import ModelRequest, ResponseCompleted, StreamEvent, TextDelta
from agent_core.models.scripted import Rule, ScriptedModel
from tests.support.agents import make_agent
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall
from tests.support.models import UnpricedModel
from tests.support.raw import RawAgent

pytestmark = pytest.mark.anyio


def conversation(turns: int, output: str = "x" * 4000) -> list[Message]:
    history: list[Message] = []
    for n in range(turns):
        history += [
            UserMessage((TextPart(f"prompt {n}"),)),
            AssistantMessage((ToolCallPart(f"c{n}", "read_file", {"path": f"f{n}"}),)),
            UserMessage((ToolResultPart(f"c{n}", output),)),
            AssistantMessage((TextPart(f"answer {n}"),)),
        ]
    return history


def assert_pairs_intact(history: list[Message]) -> None:
    kinds = [m.kind for m in history]
    assert all(a != b for a, b in itertools.pairwise(kinds)), kinds
    for index, message in enumerate(history):
        if isinstance(message, AssistantMessage) and message.tool_calls:
            follow = history[index + 1]
            assert isinstance(follow, UserMessage)
            answered = {p.call_id for p in follow.parts if isinstance(p, ToolResultPart)}
            assert {c.call_id for c in message.tool_calls} <= answered


def test_old_tool_outputs_are_cleared_and_recent_ones_kept() -> None:
    history = conversation(4)
    cleared = clear_old_tool_outputs(history, keep_recent=1500)
    outputs = [p.content for m in cleared for p in m.parts if isinstance(p, ToolResultPart)]
    assert outputs[:3] == [CLEARED] * 3 and outputs[3] == "x" * 4000
    assert_pairs_intact(cleared)


def test_the_middle_is_cut_at_a_prompt_so_no_tool_pair_is_split() -> None:
    history = conversation(4)
    split = split_for_summary(history, keep_recent=1500)
    assert split is not None
    first, middle, tail = split
    assert (
        first == history[0] and isinstance(tail[0], UserMessage) and tail[0].text == "prompt 2"
    )  # the window reaches into turn 2
    assert [first, *middle, *tail] == history
    assert (
        split_for_summary(conversation(1), keep_recent=10) is None
    )  # nothing between head and tail


def summariser(summary: str = "They read four files.") -> ScriptedModel:
    """Answers the summary request (whose prompt is a transcript) and ordinary prompts."""
    rules = (
        Rule(re.compile("^(User|Assistant|Tool)"), (({"text": summary},),)),
        Rule(re.compile(""), (({"text": "carrying on"},),)),
    )
    return ScriptedModel("compaction", rules, 0.0)


async def test_forced_compaction_summarises_and_the_next_turn_works() -> None:
    saved: list[tuple[int, bool]] = []

    async def save(messages: Any, replace: bool) -> None:
        saved.append((len(messages), replace))

    agent = make_agent(summariser(), history=conversation(4), save=save)
    events = [e async for e in agent.compact(force=True)]
    assert [e.status for e in events if isinstance(e, CompactionUpdated)] == [
        "in_progress",
        "completed",
    ]
    history = list(agent.history)
    assert (
        history[0].text == "prompt 0"
        and history[1].text == SUMMARY_PREFIX + "They read four files."
    )
    assert_pairs_intact(history)
    assert saved[-1] == (len(history), True)  # the store gets the whole, shorter conversation
    after = [e async for e in agent.run_turn((TextPart("next"),))]
    assert after[-1] == TurnEnded("end_turn")


class OverflowOnce(UnpricedModel):
    """A model whose first request is too long for it."""

    name, context_window, accepts_images = "test:overflow", 100_000, False

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        if len(self.requests) == 1:
            raise ContextOverflow("prompt is too long")
        text = "summary" if request.system.startswith("You summarise") else "fits now"
        yield TextDelta(text)
        yield ResponseCompleted(AssistantMessage((TextPart(text),)), "end_turn")


async def test_an_overflow_error_compacts_and_retries_once() -> None:
    model = OverflowOnce()
    agent = make_agent(model, history=conversation(3))  # type: ignore[arg-type]
    events = [e async for e in agent.run_turn((TextPart("go on"),))]
    assert [e.status for e in events if isinstance(e, CompactionUpdated)] == [
        "in_progress",
        "completed",
    ]
    assert events[-1] == TurnEnded("end_turn")
    assert len(model.requests) == 3  # the failed one, the summary, the retry
    assert any(
        isinstance(m, AssistantMessage) and m.text.startswith(SUMMARY_PREFIX)
        for m in model.requests[2].messages
    )


def test_a_full_window_clears_old_output_and_the_turn_continues(
    agent_env: dict[str, str], workspace: Path, heron_home: Path
) -> None:
    (workspace / "big.txt").write_text(("y" * 39 + "\n") * 300)
    (heron_home / "config.toml").write_text(
        'compact_at = 0.5\n[models."anthropic:claude-test"]\ncontext_window = 4000\n'
    )
    with FakeLLM() as fake:
        env = {**agent_env, **fake.environment("anthropic:claude-test")}
        fake.enqueue(
            Reply((ToolCall("read_file", {"path": "big.txt"}),), usage=(300, 20)),
            Reply((Text("read it"),), usage=(3500, 10)),
            Reply((Text("still here"),)),
        )
        with RawAgent(env) as agent:
            session_id = agent.start_session(
                workspace, {"session": {"compaction": {}, "notices": {}}}
            )
            _, first = agent.prompt(session_id, "read the big file")
            stop, second = agent.prompt(session_id, "and now?")
        third = fake.requests[2].body["messages"]
    assert any(u["sessionUpdate"] == "notice" and "85%" in u["title"] for u in first)
    statuses = [u["status"] for u in second if u["sessionUpdate"] == "compaction_update"]
    assert statuses == ["in_progress", "completed"] and stop == "end_turn"
    dumped = json.dumps(third)
    assert CLEARED in dumped and "y" * 39 not in dumped
    uses = [
        b["id"]
        for m in third
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "tool_use"
    ]
    results = [
        b["tool_use_id"]
        for m in third
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]
    assert uses == results and len(uses) == 1  # the pair survived, only its output was cleared
