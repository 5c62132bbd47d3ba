"""``clarify`` without I/O: the tool against a fake questioner, the translators to and from
``elicitation/create`` and ``session/request_permission`` against the vendored schema."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import ValidationError

from acp_server.bridge.approver import to_permission_request
from acp_server.bridge.questions import (
    from_choice_result,
    from_elicitation_result,
    to_choice_request,
    to_elicitation_request,
)
from agent_core.approval.permissions import ApprovalOutcome, ApprovalRequest, Permissions
from agent_core.events import Event, MessageDelta, TextContent, ToolCallUpdated, TurnEnded
from agent_core.loop.agent import Agent
from agent_core.messages import TextPart
from agent_core.models.scripted import Rule, ScriptedModel
from agent_core.ports.questions import Answer, Question
from agent_core.ports.runner import LocalRunner
from agent_core.tools.base import ToolContext, ToolOutput
from agent_core.tools.clarify import ASKED_IN_REPLY, Clarify, ClarifyArguments
from tests.support.agents import NoRules, NoWorkspace, ignore
from tests.support.sandbox import no_sandbox
from tests.support.schema import check_def

COLOUR = Question("call-1", "Which colour?", ("Blue", "Green"))
NAME = Question("call-2", "What should the module be called?")


class NeverAsked:
    async def request(self, request: ApprovalRequest) -> ApprovalOutcome:
        raise AssertionError("clarify asks through its questioner, not the approver")


class FakeQuestioner:
    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.asked: list[Question] = []

    async def ask(self, question: Question) -> Answer:
        self.asked.append(question)
        return self.answer


def context(questioner: FakeQuestioner | None, shown: list[Event]) -> ToolContext:
    async def report(event: Event) -> None:
        shown.append(event)

    permissions = Permissions("plan", NeverAsked(), NoRules(), ignore)
    return ToolContext(
        "call-1",
        NoWorkspace(),
        permissions,
        report,
        LocalRunner({}),
        no_sandbox(),
        questions=questioner,
    )


# -- the tool --------------------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("answer", "told"),
    [
        (Answer("answered", "Green"), "The user answered: Green"),
        (Answer("answered", ""), "The user submitted the question without an answer."),
        (Answer("declined"), "The user declined to answer."),
        (Answer("cancelled"), "The user dismissed the question without answering."),
    ],
)
async def test_the_model_is_told_what_came_of_the_question(answer: Answer, told: str) -> None:
    questioner, shown = FakeQuestioner(answer), list[Event]()
    arguments = ClarifyArguments(question=" Which colour? ", choices=["Blue", " Green"])
    result = await Clarify().run(arguments, context(questioner, shown))
    assert isinstance(result, str) and result.startswith(told)
    assert questioner.asked == [COLOUR]
    screens = [e.content for e in shown if isinstance(e, ToolCallUpdated)]
    assert screens[0] == (TextContent("Which colour?\n1. Blue\n2. Green"),)
    assert screens[-1] == (TextContent(f"Which colour?\n1. Blue\n2. Green\n\n{result}"),)


@pytest.mark.anyio
async def test_with_no_way_to_ask_the_question_is_the_reply() -> None:
    arguments = ClarifyArguments(question="Which colour?", choices=["Blue", "Green"])
    unasked = FakeQuestioner(Answer("unasked"))
    for questioner in (unasked, None):
        result = await Clarify().run(arguments, context(questioner, []))
        assert result == ToolOutput(ASKED_IN_REPLY, reply="Which colour?\n1. Blue\n2. Green")


def test_choices_are_few_short_and_distinct() -> None:
    for bad in (["a", "a "], [""], ["x" * 81], [str(n) for n in range(9)], [" "]):
        with pytest.raises(ValidationError):
            ClarifyArguments(question="q?", choices=bad)
    with pytest.raises(ValidationError):
        ClarifyArguments(question="")
    assert ClarifyArguments(question="q?").choices == []


def test_the_title_is_the_question_shortened() -> None:
    tool = Clarify()
    assert tool.title({}) == "Ask the user"
    assert tool.title({"question": "Which\n colour?"}) == "Which colour?"
    long = tool.title({"question": "why " * 40})
    assert len(long) == 80 and long.endswith("…")


@pytest.mark.anyio
async def test_two_unasked_questions_in_one_response_make_one_reply() -> None:
    calls = [
        {"tool_call": {"name": "clarify", "arguments": {"question": "First?"}}},
        {"tool_call": {"name": "clarify", "arguments": {"question": "Second?"}}},
    ]
    model = ScriptedModel("test", (Rule(re.compile(""), ((*calls,), ({"text": "no"},))),), 0.0)
    agent = Agent(
        model=model,
        tools={"clarify": Clarify()},
        system_prompt="sys",
        tool_context=context(None, []),
    )
    events = [e async for e in agent.run_turn((TextPart("do it"),))]
    assert events[-1] == TurnEnded("end_turn")
    assert [e.text for e in events if isinstance(e, MessageDelta)] == ["First?\n\nSecond?"]


# -- the translators -------------------------------------------------------------------


def test_a_question_with_choices_is_a_single_select_form() -> None:
    params = to_elicitation_request("s1", COLOUR)
    check_def("CreateElicitationRequest", params)
    assert params["mode"] == "form" and params["toolCallId"] == "call-1"
    assert params["message"] == "Which colour?"
    field = params["requestedSchema"]["properties"]["answer"]
    assert field["oneOf"] == [
        {"const": "Blue", "title": "Blue"},
        {"const": "Green", "title": "Green"},
    ]
    assert params["requestedSchema"]["required"] == ["answer"]


def test_a_question_without_choices_is_a_free_text_form() -> None:
    params = to_elicitation_request("s1", NAME)
    check_def("CreateElicitationRequest", params)
    field = params["requestedSchema"]["properties"]["answer"]
    assert field["type"] == "string" and "oneOf" not in field


@pytest.mark.parametrize(
    ("result", "answer"),
    [
        ({"action": "accept", "content": {"answer": "Green"}}, Answer("answered", "Green")),
        ({"action": "accept", "content": {"answer": ["a", "b"]}}, Answer("answered", "a, b")),
        ({"action": "accept", "content": {"answer": 3}}, Answer("answered", "3")),
        ({"action": "accept"}, Answer("answered", "")),
        ({"action": "decline"}, Answer("declined")),
        ({"action": "cancel"}, Answer("cancelled")),
        ({"action": "_later"}, Answer("cancelled")),
        (None, Answer("cancelled")),
    ],
)
def test_elicitation_results_map_to_answers(result: Any, answer: Answer) -> None:
    if isinstance(result, dict):
        check_def("CreateElicitationResponse", result)
    assert from_elicitation_result(result) == answer


def test_choices_without_elicitation_are_permission_options_and_skip() -> None:
    request = to_choice_request(COLOUR)
    params = to_permission_request("s1", request)
    check_def("RequestPermissionRequest", params)
    assert [(o["name"], o["kind"]) for o in params["options"]] == [
        ("Blue", "allow_once"),
        ("Green", "allow_once"),
        ("Skip", "reject_once"),
    ]
    assert params["toolCall"]["toolCallId"] == "call-1"

    def chose(option_id: str | None) -> Answer:
        outcome = (
            {"outcome": "cancelled"}
            if option_id is None
            else {"outcome": "selected", "optionId": option_id}
        )
        return from_choice_result({"outcome": outcome}, COLOUR, request.options)

    assert chose("choice-1") == Answer("answered", "Green")
    assert chose("choice-0") == Answer("answered", "Blue")
    assert chose("skip") == Answer("declined")
    assert chose("made-up") == Answer("declined")
    assert chose(None) == Answer("cancelled")
