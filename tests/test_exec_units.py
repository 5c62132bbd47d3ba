"""`heron exec`'s pure parts: how a question is answered with nobody to ask, what a run comes to
(the answer, the refusals, usage and cost, the exit code), and the permission request's
`_meta.heron` that tells a client why Heron asks."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from acp_server.bridge.approver import from_permission_result, to_permission_request
from acp_server.headless.approvals import Policy, answer
from acp_server.headless.output import CLEAR_LINE, JsonOutput, TextOutput
from acp_server.headless.record import Ending, RunRecord
from agent_core.approval.permissions import ApprovalRequest, Grounds, Option, options_for
from agent_core.safety.policy import Command, Edit, only_dangerous, situation_of

OPTIONS = [
    {"optionId": "allow_once", "name": "Allow", "kind": "allow_once"},
    {"optionId": "allow_always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "reject_once", "name": "Reject", "kind": "reject_once"},
    {"optionId": "reject_always", "name": "Always reject", "kind": "reject_always"},
]


def asked(**heron: Any) -> dict[str, Any]:
    request: dict[str, Any] = {"sessionId": "s", "toolCall": {"toolCallId": "c"}}
    return {**request, "options": OPTIONS, "_meta": {"heron": heron}}


def chosen(result: dict[str, Any]) -> str:
    return result["outcome"].get("optionId", result["outcome"]["outcome"])


@pytest.mark.parametrize("allow_dangerous", [False, True])
def test_what_would_ask_is_refused_once_never_always(allow_dangerous: bool) -> None:
    said = answer(asked(rule="everything else asks"), Policy("ask", allow_dangerous))
    assert chosen(said.result) == "reject_once" and said.refused
    assert said.result["_meta"]["heron"]["reason"] == said.reason
    assert said.reason is not None and "in ask mode whatever would ask is refused" in said.reason


def test_allow_dangerous_says_yes_only_to_what_danger_alone_makes_ask() -> None:
    dangerous = asked(rule="dangerous or unreadable asks", onlyDangerous=True)
    assert chosen(answer(dangerous, Policy("full-access")).result) == "reject_once"
    assert "--allow-dangerous" in str(answer(dangerous, Policy("full-access")).reason)
    said = answer(dangerous, Policy("full-access", allow_dangerous=True))
    assert chosen(said.result) == "allow_once" and not said.refused
    more = asked(rule="dangerous or unreadable asks", onlyDangerous=False)
    assert answer(more, Policy("ask", allow_dangerous=True)).refused


def test_a_question_is_skipped_not_refused_and_no_rejection_means_cancelled() -> None:
    options = [{"optionId": "choice-0", "name": "red", "kind": "allow_once"}]
    skip = {"optionId": "skip", "name": "Skip", "kind": "reject_once"}
    question = {**asked(question=True), "options": [*options, skip]}
    said = answer(question, Policy("full-access"))
    assert chosen(said.result) == "skip" and not said.refused and said.reason
    said = answer({**asked(), "options": options}, Policy("ask"))
    assert said.result == {"outcome": {"outcome": "cancelled"}} and said.refused
    assert answer({"garbage": True}, Policy("ask")).result["outcome"]["outcome"] == "cancelled"


def test_the_policy_says_when_danger_alone_asks() -> None:
    def situation(mode: str, command: str) -> Any:
        return situation_of(mode, Command(command), frozenset(), frozenset(), True)  # type: ignore[arg-type]

    assert only_dangerous(situation("full-access", "rm -rf build"))
    assert not only_dangerous(situation("ask", "rm -rf build"))  # ask mode would ask anyway
    assert not only_dangerous(situation("accept-edits", "rm -rf build"))
    assert not only_dangerous(situation("full-access", "touch x"))  # not dangerous at all
    edit = Edit(Path("/w/.env"), True, protected=".env holds secrets")
    assert not only_dangerous(situation_of("full-access", edit, frozenset(), frozenset(), True))


def test_the_permission_request_names_its_grounds_and_a_reason_reaches_the_model() -> None:
    options = options_for(Command("rm -rf build"))
    grounds = Grounds("dangerous or unreadable asks", only_dangerous=True)
    request = ApprovalRequest("c", "Run `rm -rf build`", "execute", options, grounds=grounds)
    params = to_permission_request("s", request)
    assert params["_meta"] == {
        "heron": {"rule": "dangerous or unreadable asks", "onlyDangerous": True}
    }
    assert "_meta" not in to_permission_request("s", ApprovalRequest("c", "t", "edit", options))
    said = answer(params, Policy("full-access"))
    outcome = from_permission_result(said.result, options)
    assert outcome.decision == "reject_once" and outcome.reason == said.reason
    allowed = from_permission_result(
        {**answer(params, Policy("full-access", True)).result, "_meta": {"heron": {"reason": "x"}}},
        options,
    )
    assert allowed.allowed and allowed.reason is None
    assert from_permission_result(said.result, (Option("other", "Other", "allow_once"),)).reason


def update(kind: str, **fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": kind, **fields}


def chunk(message_id: str, text: str) -> dict[str, Any]:
    return update(
        "agent_message_chunk", messageId=message_id, content={"type": "text", "text": text}
    )


def test_the_answer_is_the_last_message_and_tool_calls_count_once() -> None:
    record = RunRecord()
    record.see(update("usage_update", used=1, size=9, cost={"amount": 0.5, "currency": "USD"}))
    record.see(chunk("old", "from before the run"))  # a continued session's, before the prompt
    record.prompting = True
    record.see(chunk("a", "Let me "))
    record.see(chunk("a", "look."))
    record.see(update("tool_call", toolCallId="t1", title="Read"))
    record.see(update("tool_call_update", toolCallId="t1", status="completed"))
    record.see(update("tool_call", toolCallId="t2", title="Write"))
    refusal = {"heron": {"refused": "Refused: plan mode is read-only."}}
    record.see(update("tool_call_update", toolCallId="t2", status="failed", _meta=refusal))
    record.see(chunk("b", "Here it "))
    record.see(chunk("b", "is."))
    turn = {"requests": 3, "totalTokens": 30, "inputTokens": 20, "outputTokens": 10}
    usage = update("usage_update", used=5, size=9, cost={"amount": 0.75, "currency": "USD"})
    record.see({**usage, "_meta": {"heron": {"turn": turn}}})
    result = record.result("s", Ending("end_turn"), 1234)
    assert result["answer"] == "Here it is."
    assert result["toolCalls"] == 2 and result["requests"] == 3
    assert result["usage"] == {"totalTokens": 30, "inputTokens": 20, "outputTokens": 10}
    assert result["cost"] == {"amount": 0.25, "currency": "USD"}  # this run's share
    assert result["exitCode"] == 3
    assert (
        result["error"] == "1 action refused for lack of approval: Refused: plan mode is read-only."
    )


@pytest.mark.parametrize(
    ("ending", "refused", "code"),
    [
        (Ending("end_turn"), False, 0),
        (Ending("end_turn"), True, 3),
        (Ending("max_turn_requests"), False, 1),
        (Ending("refusal"), False, 1),
        (Ending(error="no key"), True, 1),
        (Ending(error="Unknown session id", usage_error=True), False, 2),
        (Ending("cancelled", interrupted=True), True, 130),
        (Ending(interrupted=True), False, 130),
    ],
)
def test_exit_codes(ending: Ending, refused: bool, code: int) -> None:
    record = RunRecord()
    if refused:
        record.refuse("c", "no one is here to approve it")
    result = record.result(None, ending, 0)
    assert result["exitCode"] == code
    assert (result["error"] is None) == (code == 0)
    assert result["usage"] is None and result["cost"] is None and result["requests"] == 0


def ended(answer: str = "Done.") -> dict[str, Any]:
    result = RunRecord().result("s", Ending("end_turn"), 1500)
    return {**result, "answer": answer}


def test_on_a_terminal_one_status_line_is_rewritten_then_cleared() -> None:
    out, err = io.StringIO(), io.StringIO()
    shown = TextOutput(out, err, live=True)
    shown.update(update("tool_call", toolCallId="t", title="Read README.md"))
    shown.update(update("agent_message_chunk", messageId="m", content={"text": "Done."}))
    shown.note("heron: WARNING something")
    shown.update(update("agent_thought_chunk", messageId="m", content={"text": "hm"}))
    shown.tick()  # the clock moves on
    assert err.getvalue().endswith(f"{CLEAR_LINE}⏺ thinking · 1 tool call · 0 s")
    shown.finish(ended())
    assert out.getvalue() == "Done.\n"  # the answer alone
    screen = err.getvalue()
    assert f"{CLEAR_LINE}⏺ Read README.md · 1 tool call · 0 s" in screen
    assert f"{CLEAR_LINE}⏺ answering · 1 tool call" in screen
    assert f"{CLEAR_LINE}heron: WARNING something\n" in screen  # the status cleared first
    assert screen.endswith(
        f"{CLEAR_LINE}heron exec: end_turn · 0 requests · 0 tool calls · 1.5 s · session s\n"
    )


def test_elsewhere_progress_is_plain_lines_and_json_is_json_alone() -> None:
    out, err = io.StringIO(), io.StringIO()
    shown = TextOutput(out, err, live=False)
    shown.update(update("tool_call", toolCallId="t", title="Write file"))
    refusal = {"heron": {"refused": "Refused: plan mode is read-only."}}
    shown.update(update("tool_call_update", toolCallId="t", title="Write a.py", _meta=refusal))
    shown.update(update("tool_call_update", toolCallId="t", status="failed"))
    shown.finish(ended(""))
    assert out.getvalue() == ""
    assert err.getvalue().splitlines()[:2] == [
        "→ Write file",
        "✗ refused: Write a.py: Refused: plan mode is read-only.",
    ]
    assert "\x1b" not in err.getvalue()
    out, err = io.StringIO(), io.StringIO()
    streamed = JsonOutput(out, err)
    streamed.start({"type": "start"})
    streamed.update(update("plan", entries=[]))
    streamed.note("a log line")
    streamed.finish(ended())
    assert [
        json.loads(line)["type" if "type" in line else "sessionUpdate"]
        for line in out.getvalue().splitlines()
    ] == ["start", "plan", "result"]
    assert err.getvalue() == "a log line\n"
