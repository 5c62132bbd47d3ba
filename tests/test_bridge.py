"""The pure translations, checked against the ACP schema without any I/O."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_server.bridge.approver import from_permission_result, to_permission_request
from acp_server.bridge.content import UnsupportedContent, from_prompt, linked_uris
from acp_server.bridge.modes import SessionOptions, to_config_options, to_modes, to_option_updates
from acp_server.bridge.updates import to_session_update
from agent_core.approval.permissions import ApprovalRequest, options_for
from agent_core.events import (
    DiffContent,
    Location,
    MessageDelta,
    NoticeRaised,
    PlanEntry,
    PlanUpdated,
    ThoughtDelta,
    ToolCallStarted,
    ToolCallUpdated,
    TurnEnded,
    UsageUpdated,
)
from agent_core.messages import TextPart
from agent_core.models.choices import ModelOption
from agent_core.safety.policy import Command, Edit
from tests.support.schema import check_def

EVENTS = [
    MessageDelta("m1", "hello"),
    ThoughtDelta("m1", "hmm"),
    ToolCallStarted("c1", "read_file", "Read src/app.py", "read", {"path": "src/app.py"}),
    ToolCallStarted("c2", "terminal", "terminal", "execute"),
    ToolCallUpdated("c1", status="in_progress"),
    ToolCallUpdated("c1", status="completed", output="1: print('hi')"),
    ToolCallUpdated("c2", title="Run `ls`", arguments={"command": "ls"}),
    PlanUpdated((PlanEntry("read", "completed", "high"), PlanEntry("edit"))),
    UsageUpdated(1200, 200_000),
    UsageUpdated(1200, 200_000, cost_usd=0.0123),
    NoticeRaised("warning", "Rate limited", "retrying in 4 s"),
]


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: e.kind)
@pytest.mark.parametrize("notices", [False, True])
def test_every_event_becomes_a_schema_valid_update(event: object, notices: bool) -> None:
    update = to_session_update(event, notices=notices)  # type: ignore[arg-type]
    assert update is not None
    check_def("SessionNotification", {"sessionId": "s1", "update": update})


def test_chunks_carry_the_message_id_and_text() -> None:
    assert to_session_update(MessageDelta("m1", "hi")) == {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m1",
        "content": {"type": "text", "text": "hi"},
    }


def test_notices_fall_back_to_a_message_when_not_advertised() -> None:
    event = NoticeRaised("info", "Switched to fallback model")
    assert to_session_update(event, notices=True) == {
        "sessionUpdate": "notice",
        "severity": "info",
        "title": "Switched to fallback model",
    }
    fallback = to_session_update(event, notices=False)
    assert fallback is not None and fallback["sessionUpdate"] == "agent_message_chunk"
    assert "Switched to fallback model" in fallback["content"]["text"]


def test_turn_end_is_not_an_update() -> None:
    assert to_session_update(TurnEnded("end_turn")) is None


def test_prompt_blocks_become_delimited_context() -> None:
    blocks = [
        {"type": "text", "text": "explain"},
        {"type": "resource_link", "uri": "file:///w/a.py", "name": "a.py"},
        {
            "type": "resource",
            "resource": {"uri": "file:///w/b.py", "text": "x = 1", "mimeType": "text/x-python"},
        },
        {
            "type": "resource",
            "resource": {"uri": "file:///w/c.png", "blob": "AAAA", "mimeType": "image/png"},
        },
    ]
    assert linked_uris(blocks) == ["file:///w/a.py"]
    parts = from_prompt(blocks, {"file:///w/a.py": "print(1)"})
    assert parts[0] == TextPart("explain")
    assert parts[1] == TextPart('<context uri="file:///w/a.py" name="a.py">\nprint(1)\n</context>')
    assert parts[2] == TextPart('<context uri="file:///w/b.py">\nx = 1\n</context>')
    assert isinstance(parts[3], TextPart) and "binary content, image/png" in parts[3].text


def test_unadvertised_content_is_refused() -> None:
    with pytest.raises(UnsupportedContent, match="image"):
        from_prompt([{"type": "image", "data": "AAAA", "mimeType": "image/png"}], {})


def test_permission_answers_never_turn_into_consent_by_accident() -> None:
    options = options_for(Command("pytest -q"))
    assert (
        from_permission_result(
            {"outcome": {"outcome": "selected", "optionId": "allow_always"}}, options
        ).decision
        == "allow_always"
    )
    assert (
        from_permission_result({"outcome": {"outcome": "cancelled"}}, options).decision
        == "cancelled"
    )
    assert not from_permission_result(
        {"outcome": {"outcome": "selected", "optionId": "weird"}}, options
    ).allowed
    assert from_permission_result(None, options).decision == "cancelled"


def test_permission_requests_carry_the_diff_and_match_the_schema() -> None:
    action = Edit(Path("/w/a.py"), inside_roots=True)
    request = ApprovalRequest(
        "c1",
        "Edit a.py",
        "edit",
        options_for(action),
        (DiffContent("/w/a.py", "x = 1\n", "x = 2\n"),),
        (Location("/w/a.py", 1),),
    )
    params = to_permission_request("s1", request)
    check_def("RequestPermissionRequest", params)
    assert [o["kind"] for o in params["options"]] == [
        "allow_once",
        "allow_always",
        "reject_once",
        "reject_always",
    ]
    assert params["toolCall"]["content"][0] == {
        "type": "diff",
        "path": "/w/a.py",
        "oldText": "x = 1\n",
        "newText": "x = 2\n",
    }


def test_modes_and_options_are_schema_valid_and_in_sync() -> None:
    models = (ModelOption("anthropic:claude-x", "current"), ModelOption("openai:gpt-5", "listed"))
    options = SessionOptions("plan", "anthropic:claude-x", models, "low")
    check_def("SessionModeState", to_modes(options))
    config = to_config_options(options)
    for option in config:
        check_def("SessionConfigOption", option)
    assert [(o["id"], o["category"], o["currentValue"]) for o in config] == [
        ("mode", "mode", "plan"),
        ("model", "model", "anthropic:claude-x"),
        ("thought_level", "thought_level", "low"),
    ]
    for update in to_option_updates(options, mode_changed=True):
        check_def("SessionNotification", {"sessionId": "s", "update": update})
    no_thinking = SessionOptions(
        "ask", "scripted:echo", (ModelOption("scripted:echo", "current"),), None
    )
    assert [o["id"] for o in to_config_options(no_thinking)] == ["mode", "model"]


def test_the_replay_transcript_keeps_a_calls_meta_from_every_update() -> None:
    """A subagent's call names its parent on every update, and a checkpoint arrives on a later
    one: the replayed final update keeps both."""
    from acp_server.bridge.transcript import TranscriptBuilder

    transcript = TranscriptBuilder()
    parent = {"heron": {"parentToolCallId": "d1"}}
    transcript.feed(
        {"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Edit", "_meta": parent}
    )
    transcript.feed(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "_meta": {"heron": {"checkpoint": 3}},
        }
    )
    transcript.feed(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "status": "completed",
            "_meta": parent,
        }
    )
    start, final = transcript.drain(finished=True)
    assert start["_meta"] == parent
    assert final["_meta"] == {"heron": {"checkpoint": 3, "parentToolCallId": "d1"}}


def test_the_transcript_keeps_the_latest_usage_of_each_drain_and_a_replay_sends_none() -> None:
    import json

    from acp_server.bridge.transcript import TranscriptBuilder, last_usage, replay

    def usage(used: int, amount: float) -> dict[str, Any]:
        cost = {"amount": amount, "currency": "USD"}
        return {"sessionUpdate": "usage_update", "used": used, "size": 1000, "cost": cost}

    transcript = TranscriptBuilder()
    transcript.user_prompt([{"type": "text", "text": "usage_update"}], "p1")
    transcript.feed(usage(10, 0.1))
    transcript.feed({"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Delegate"})
    transcript.feed(usage(10, 0.2))  # a subagent's spend while its call runs
    first = transcript.drain()
    assert first == [first[0], usage(10, 0.2)]  # the call holds back what follows, not usage
    transcript.feed({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "failed"})
    transcript.feed(usage(30, 0.3))
    stored = [json.dumps(item) for item in [*first, *transcript.drain(finished=True)]]
    assert [item["sessionUpdate"] for item in map(json.loads, stored)] == [
        "user_message_chunk",
        "usage_update",
        "tool_call",
        "tool_call_update",
        "usage_update",
    ]
    assert [json.loads(item)["sessionUpdate"] for item in replay(stored)] == [
        "user_message_chunk",
        "tool_call",
        "tool_call_update",
    ]
    assert last_usage(stored) == usage(30, 0.3)
    assert last_usage(stored[:1]) is None  # stored before usage was kept: none
    assert transcript.drain(finished=True) == []  # handed over once


def test_a_stored_usage_update_reads_back_as_the_usage_it_showed() -> None:
    from acp_server.bridge.updates import from_usage_update, to_usage_update

    for event in (UsageUpdated(120, 200_000, 0.0012), UsageUpdated(5, 10)):
        update = to_usage_update(event)
        check_def("SessionNotification", {"sessionId": "s", "update": update})
        assert from_usage_update(update) == event
    assert from_usage_update(None) is None
    assert from_usage_update({"sessionUpdate": "plan", "entries": []}) is None
    assert from_usage_update({"sessionUpdate": "usage_update", "used": "7", "size": 9}) is None
    seven = {"sessionUpdate": "usage_update", "used": 7, "size": 9}
    in_euros = seven | {"cost": {"amount": 1, "currency": "EUR"}}
    assert from_usage_update(in_euros) == UsageUpdated(7, 9, None)  # a cost Heron did not count
    assert from_usage_update(seven | {"cost": {"amount": 2, "currency": "USD"}}) == UsageUpdated(
        7, 9, 2.0
    )
