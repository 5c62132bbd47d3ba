"""Histories a stopped process or an older version left behind, mended into ones every
provider takes: checked with the providers' own pairing rules on each adapter's request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agent_core.loop.history import INTERRUPTED_RESULT, History, well_formed
from agent_core.messages import (
    AssistantMessage,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UserMessage,
)
from agent_core.models.anthropic import to_anthropic_messages
from agent_core.models.openai import to_responses_input
from agent_core.models.openai_chat import to_chat_messages
from tests.support.pairing import anthropic_problem, chat_problem, responses_problem

Check = Callable[[tuple[Message, ...]], str | None]
PROVIDERS: dict[str, Check] = {
    "anthropic": lambda h: anthropic_problem({"messages": to_anthropic_messages(h)}),
    "openai": lambda h: responses_problem({"input": to_responses_input(h)}),
    "openai-chat": lambda h: chat_problem({"messages": to_chat_messages(h)}),
}


def user(*parts: Any) -> UserMessage:
    return UserMessage(tuple(TextPart(p) if isinstance(p, str) else p for p in parts))


def calls(*ids: str, text: str = "") -> AssistantMessage:
    parts = (TextPart(text),) if text else ()
    return AssistantMessage((*parts, *(ToolCallPart(i, "terminal", {"command": i}) for i in ids)))


def result(call_id: str, text: str = "ok") -> ToolResultPart:
    return ToolResultPart(call_id, text)


BROKEN: dict[str, list[Message]] = {
    "killed during a tool": [user("run it"), calls("a", "b", text="Running.")],
    "killed, then prompted again": [user("run it"), calls("a"), user("go on")],
    "one of two results lost": [user("x"), calls("a", "b"), user(result("b"), "more")],
    "a result that answers nothing": [
        user(result("zzz"), "hi"),
        AssistantMessage((TextPart("ok"),)),
    ],
    "results after the text": [user("x"), calls("a"), user("note", result("a"))],
    "a result given twice": [user("x"), calls("a"), user(result("a"), result("a", "again"))],
    "an empty message between": [user("x"), AssistantMessage(()), user("y")],
}


@pytest.mark.parametrize("provider", list(PROVIDERS))
@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_histories_are_mended_for_every_provider(provider: str, case: str) -> None:
    check = PROVIDERS[provider]
    mended = well_formed(BROKEN[case])
    assert mended.changed
    assert check(mended.messages) is None
    assert well_formed(mended.messages) == type(mended)(mended.messages)  # mended stays mended


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_the_providers_rules_catch_what_was_broken(provider: str) -> None:
    """The checks are real: the history a killed process left is what providers refuse."""
    assert PROVIDERS[provider](tuple(BROKEN["killed, then prompted again"])) is not None


def test_a_killed_call_gets_the_interrupted_result_before_the_next_prompt() -> None:
    mended = well_formed(BROKEN["killed, then prompted again"])
    assert [c.call_id for c in mended.interrupted] == ["a"]
    last = mended.messages[-1]
    assert isinstance(last, UserMessage)
    assert last.parts == (ToolResultPart("a", INTERRUPTED_RESULT, is_error=True), TextPart("go on"))


def test_a_history_killed_mid_tool_ends_with_the_interrupted_results() -> None:
    mended = well_formed(BROKEN["killed during a tool"])
    assert [c.call_id for c in mended.interrupted] == ["a", "b"]
    assert mended.messages[-1] == UserMessage(
        tuple(ToolResultPart(i, INTERRUPTED_RESULT, is_error=True) for i in "ab")
    )


def test_what_was_answered_is_kept_and_ordered_first() -> None:
    mended = well_formed(BROKEN["one of two results lost"])
    assert mended.messages[-1] == UserMessage(
        (
            ToolResultPart("a", INTERRUPTED_RESULT, is_error=True),
            result("b"),
            TextPart("more"),
        )
    )
    assert well_formed(BROKEN["a result given twice"]).messages[-1] == user(result("a"))


def test_a_well_formed_history_is_left_alone() -> None:
    history = [user("x"), calls("a"), user(result("a"), "and"), AssistantMessage((TextPart("k"),))]
    kept = well_formed(history)
    assert not kept.changed and kept.messages == tuple(history) and not kept.interrupted


def test_mending_as_the_history_grows_looks_at_its_tail_and_still_finds_what_broke() -> None:
    history = History(
        [user("x"), calls("a"), user(result("a")), AssistantMessage((TextPart("k"),))]
    )
    assert history.interrupted == ()
    for turn in range(50):
        history.add(user(f"turn {turn}"))
        history.add(AssistantMessage((TextPart("ok"),)))
        assert history.mend() == ()
    history.add(user("run b"))
    history.add(calls("b"))
    history.add(user("go on"))  # b never answered: a stopped turn
    assert [c.call_id for c in history.mend()] == ["b"]
    assert all(check(history.messages) is None for check in PROVIDERS.values())
    assert history.unsaved() == (history.messages, True)  # the mended history replaces the stored
