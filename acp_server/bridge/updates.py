"""Pure translation of agent-core events into ACP ``session/update`` payloads.

Each function returns the ``update`` object of a ``session/update`` notification (a plain,
JSON-ready dict), or ``None`` for events the editor does not see.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, cast

from agent_core.events import (
    CompactionUpdated,
    DiffContent,
    Event,
    ImageContent,
    Location,
    MessageDelta,
    ModeChanged,
    NoticeRaised,
    PlanEntry,
    PlanUpdated,
    ResourceContent,
    SessionContent,
    TerminalContent,
    TextContent,
    ThoughtDelta,
    ToolCallStarted,
    ToolCallUpdated,
    ToolContent,
    UsageUpdated,
)

Update = dict[str, Any]


def to_session_update(
    event: Event, *, notices: bool = False, compaction: bool = False, subagents: bool = False
) -> Update | None:
    """The update for ``event``; ``notices`` and ``compaction`` say whether the client takes
    ``notice`` and ``compaction_update`` updates (else they become short messages),
    ``subagents`` whether it takes child sessions (else a link to one is left out). A
    subagent's own events are ``bridge.subagents``'."""
    match event:
        case MessageDelta():
            return _chunk("agent_message_chunk", event.message_id, event.text)
        case ThoughtDelta():
            return _chunk("agent_thought_chunk", event.message_id, event.text)
        case ToolCallStarted():
            return to_tool_call(event)
        case ToolCallUpdated():
            return to_tool_call_update(event, subagents=subagents)
        case PlanUpdated():
            entries = [
                {"content": e.content, "priority": e.priority, "status": e.status}
                for e in event.entries
            ]
            return {"sessionUpdate": "plan", "entries": entries}
        case UsageUpdated():
            return to_usage_update(event)
        case NoticeRaised():
            return to_notice(event, notices=notices)
        case ModeChanged():
            return to_mode_update(event)
        case CompactionUpdated():
            return to_compaction_update(event, compaction=compaction)
        case _:
            return None


def _chunk(kind: str, message_id: str, text: str) -> Update:
    return {
        "sessionUpdate": kind,
        "messageId": message_id,
        "content": {"type": "text", "text": text},
    }


def to_tool_call(event: ToolCallStarted) -> Update:
    update: Update = {
        "sessionUpdate": "tool_call",
        "toolCallId": event.call_id,
        "title": event.title,
        "name": event.name,
        "kind": event.tool_kind,
        "status": "pending",
    }
    if event.arguments is not None:
        update["rawInput"] = event.arguments
    if event.parent_call_id is not None:
        update["_meta"] = _heron_meta(parent=event.parent_call_id)
    return update


def to_tool_call_update(event: ToolCallUpdated, *, subagents: bool = False) -> Update:
    update: Update = {"sessionUpdate": "tool_call_update", "toolCallId": event.call_id}
    if event.status is not None:
        update["status"] = event.status
    if event.title is not None:
        update["title"] = event.title
    if event.arguments is not None:
        update["rawInput"] = event.arguments
    if event.output is not None:
        update["rawOutput"] = {"output": event.output}
    if event.content is not None:
        shown = [c for c in event.content if subagents or not isinstance(c, SessionContent)]
        update["content"] = [to_tool_content(c) for c in shown]
    if event.locations is not None:
        update["locations"] = [to_location(loc) for loc in event.locations]
    if event.checkpoint is not None or event.parent_call_id is not None or event.refused:
        update["_meta"] = _heron_meta(event.checkpoint, event.parent_call_id, event.refused)
    return update


def _heron_meta(
    checkpoint: int | None = None, parent: str | None = None, refused: str | None = None
) -> Update:
    """Heron's extensions of a tool call: the checkpoint that covers it ("restore to here":
    ``/restore <n>``), for a subagent's call the ``delegate`` call it belongs to, so an
    editor can nest it, and for a call the approval gate refused, the refusal the model
    reads (``heron exec`` tells a run stopped for lack of approval by it)."""
    heron: Update = {}
    if checkpoint is not None:
        heron["checkpoint"] = checkpoint
    if parent is not None:
        heron["parentToolCallId"] = parent
    if refused:
        heron["refused"] = refused
    return {"heron": heron}


def to_tool_content(content: ToolContent) -> Update:
    match content:
        case DiffContent():
            return {
                "type": "diff",
                "path": content.path,
                "oldText": content.old_text,
                "newText": content.new_text,
            }
        case TerminalContent():
            return {"type": "terminal", "terminalId": content.terminal_id}
        case TextContent():
            return {"type": "content", "content": {"type": "text", "text": content.text}}
        case ImageContent():
            image = {"type": "image", "data": content.data, "mimeType": content.mime_type}
            return {"type": "content", "content": image}
        case ResourceContent(text=None):
            link = {"type": "resource_link", "uri": content.uri, "name": content.name}
            if content.mime_type:
                link["mimeType"] = content.mime_type
            return {"type": "content", "content": link}
        case ResourceContent(text=text):
            embedded = {"uri": content.uri, "text": text}
            if content.mime_type:
                embedded["mimeType"] = content.mime_type
            return {"type": "content", "content": {"type": "resource", "resource": embedded}}
        case SessionContent():
            return {"type": "session", "sessionId": content.session_id}


def to_location(location: Location) -> Update:
    if location.line is None:
        return {"path": location.path}
    return {"path": location.path, "line": location.line}


def to_compaction_update(event: CompactionUpdated, *, compaction: bool) -> Update | None:
    if compaction:
        update: Update = {
            "sessionUpdate": "compaction_update",
            "compactionId": event.compaction_id,
            "status": event.status,
        }
        if event.summary:
            update["summary"] = [{"type": "text", "text": event.summary}]
        if event.error:
            update["error"] = event.error
        return update
    if event.status == "in_progress":
        return None
    text = (
        "Compacted the conversation to save context."
        if event.status == "completed"
        else f"Compaction failed: {event.error}"
    )
    return _aside(f"compaction-{event.compaction_id}", text)


def to_mode_update(event: ModeChanged) -> Update:
    return {"sessionUpdate": "current_mode_update", "currentModeId": event.mode}


def to_usage_update(event: UsageUpdated) -> Update:
    update: Update = {
        "sessionUpdate": "usage_update",
        "used": event.used_tokens,
        "size": event.context_window,
    }
    if event.cost_usd is not None:
        update["cost"] = {"amount": event.cost_usd, "currency": "USD"}
    if (turn := event.turn) is not None:  # Heron's: the turn so far, its tokens named as ACP's
        counts = {  # (unstable) ``Usage`` names them
            "inputTokens": turn.input_tokens,
            "outputTokens": turn.output_tokens,
            "cachedReadTokens": turn.cache_read_tokens,
            "cachedWriteTokens": turn.cache_write_tokens,
        }
        so_far = {"requests": turn.requests, "totalTokens": sum(counts.values()), **counts}
        update["_meta"] = {"heron": {"turn": so_far}}
    return update


def from_usage_update(update: Update | None) -> UsageUpdated | None:
    """The usage a stored ``usage_update`` recorded (``to_usage_update`` the other way round),
    or None when there is none or it is not one: a meter then starts from zero."""
    if update is None or update.get("sessionUpdate") != "usage_update":
        return None
    used, size = _count(update.get("used")), _count(update.get("size"))
    if used is None or size is None:
        return None
    return UsageUpdated(used, size, _usd(update.get("cost")))


def from_plan_update(update: Update | None) -> PlanUpdated | None:
    """The plan a stored ``plan`` update recorded (the other way round from
    ``to_session_update``), its entries that read as ones; None when there is none."""
    if update is None or update.get("sessionUpdate") != "plan":
        return None
    entries: list[PlanEntry] = []
    for entry in cast(list[Any], update.get("entries") or []):
        fields = cast(Update, entry) if isinstance(entry, dict) else {}
        content, status = fields.get("content"), fields.get("status")
        priority = fields.get("priority", "medium")
        if (
            isinstance(content, str)
            and status in ("pending", "in_progress", "completed")
            and priority in ("high", "medium", "low")
        ):
            entries.append(PlanEntry(content, status, priority))
    return PlanUpdated(tuple(entries))


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _usd(cost: Any) -> float | None:
    if not isinstance(cost, dict) or cast(Update, cost).get("currency") != "USD":
        return None
    amount: Any = cast(Update, cost).get("amount")
    is_number = isinstance(amount, int | float) and not isinstance(amount, bool)
    return float(amount) if is_number else None


def to_notice(event: NoticeRaised, *, notices: bool) -> Update:
    """A ``notice`` where the client takes them, else a short agent message."""
    if notices:
        update: Update = {
            "sessionUpdate": "notice",
            "severity": event.severity,
            "title": event.title,
        }
        if event.description:
            update["description"] = event.description
        return update
    text = event.title if not event.description else f"{event.title}: {event.description}"
    return _aside(f"notice-{uuid.uuid4()}", text)


def _aside(message_id: str, text: str) -> Update:
    """A status line as its own short, italic agent message, for clients without the update."""
    return _chunk("agent_message_chunk", message_id, f"\n\n_{text}_\n\n")


def to_iso_time(timestamp: float) -> str:
    """ACP's ``updatedAt``: ISO 8601 in UTC, to the second."""
    return (
        datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    )
