"""The pure translations, checked against the ACP schema without any I/O."""

from __future__ import annotations

import pytest

from acp_server.bridge.approver import from_permission_result
from acp_server.bridge.content import UnsupportedContent, from_prompt, linked_uris
from acp_server.bridge.updates import to_session_update
from agent_core.events import (
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
    assert from_permission_result(
        {"outcome": {"outcome": "selected", "optionId": "allow_always"}}
    ).allowed
    assert from_permission_result({"outcome": {"outcome": "cancelled"}}).decision == "cancelled"
    assert not from_permission_result(
        {"outcome": {"outcome": "selected", "optionId": "weird"}}
    ).allowed
    assert from_permission_result(None).decision == "cancelled"
