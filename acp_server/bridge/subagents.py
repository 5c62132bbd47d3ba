"""Pure translation of a subagent's events: a session of its own for an editor that takes child
sessions (``clientCapabilities.subagents``), or folded into its parent's, as before, for one
that does not.

A child session is announced on its parent with ``subagent_update`` (title, description, what
the editor may do with it, its state) before anything bears its id; what its turn does then goes
out as ordinary updates under its own id, its task first, as the message its parent sent it. Its
end is its state on the parent: idle, with how it stopped.

Folded, a subagent is its ``delegate`` call: its tool calls carry that call's id
(``_meta.heron.parentToolCallId``) so an editor can nest them, its notices say whose they are,
and the rest of its turn (text, thoughts, plan) stays its own.
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from agent_core.events import (
    Event,
    NoticeRaised,
    SubagentEnded,
    SubagentEvent,
    SubagentStarted,
    ToolCallStarted,
    ToolCallUpdated,
)

Update = dict[str, Any]


def to_announcement(event: SubagentStarted, description: str | None = None) -> Update:
    """The ``subagent_update`` that makes the child known to the editor: working, and stoppable
    with ``session/cancel``."""
    update: Update = {
        "sessionUpdate": "subagent_update",
        "sessionId": event.session_id,
        "title": event.title,
        "capabilities": {"cancel": {}},
        "state": {"state": "running"},
    }
    if description:
        update["description"] = description
    return update


def to_ending(event: SubagentEnded) -> Update:
    """Its state once its work ended: idle, with how it stopped (and why, when it failed); it
    can no longer be cancelled."""
    state: Update = {"state": "idle", "stopReason": event.stop_reason}
    if event.error is not None:
        state |= {"stopReason": "error", "error": {"code": -32603, "message": event.error}}
    return {
        "sessionUpdate": "subagent_update",
        "sessionId": event.session_id,
        "capabilities": None,
        "state": state,
    }


def to_task(event: SubagentStarted, parent_id: str) -> Update:
    """The child's first message: its task, from its parent."""
    return {
        "sessionUpdate": "session_message",
        "messageId": f"{event.session_id}-task",
        "senderSessionId": parent_id,
        "recipientSessionId": event.session_id,
        "content": [{"type": "text", "text": event.task}],
    }


def folded(event: SubagentStarted | SubagentEvent | SubagentEnded) -> Event | None:
    """What the parent shows of a subagent's event when the editor takes no child sessions."""
    if not isinstance(event, SubagentEvent):
        return None
    inner = folded(event.event) if isinstance(event.event, SubagentEvent) else event.event
    match inner:
        case ToolCallStarted() | ToolCallUpdated():
            return replace(inner, parent_call_id=inner.parent_call_id or event.call_id)
        case NoticeRaised():
            return replace(inner, title=f"Subagent: {inner.title}")
        case _:
            return None
