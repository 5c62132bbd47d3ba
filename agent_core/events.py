"""What a turn tells the outside world: typed, frozen, past-tense facts.

``Agent.run_turn`` yields these in order; the ACP bridge translates them to ``session/update``
notifications with pure functions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from msgspec import Struct

StopReason = Literal["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]
ToolKind = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]
ToolStatus = Literal["pending", "in_progress", "completed", "failed"]
Severity = Literal["info", "warning", "error"]


class MessageDelta(Struct, frozen=True):
    """Assistant text arrived."""

    message_id: str
    text: str
    kind: Literal["message_delta"] = "message_delta"


class ThoughtDelta(Struct, frozen=True):
    """Assistant reasoning arrived."""

    message_id: str
    text: str
    kind: Literal["thought_delta"] = "thought_delta"


class ToolCallStarted(Struct, frozen=True):
    """The model began a tool call; arguments may still be streaming."""

    call_id: str
    name: str
    title: str
    tool_kind: ToolKind
    arguments: dict[str, Any] | None = None
    parent_call_id: str | None = None  # a subagent's call: the ``delegate`` call that runs it
    kind: Literal["tool_call_started"] = "tool_call_started"


class DiffContent(Struct, frozen=True):
    """A proposed or applied change to one file; ``old_text`` None for a new file."""

    path: str
    old_text: str | None
    new_text: str
    kind: Literal["diff"] = "diff"


class TerminalContent(Struct, frozen=True):
    """Live output of a command running in one of the editor's terminals."""

    terminal_id: str
    kind: Literal["terminal"] = "terminal"


class TextContent(Struct, frozen=True):
    text: str
    kind: Literal["text"] = "text"


class ImageContent(Struct, frozen=True):
    data: str  # base64
    mime_type: str
    kind: Literal["image"] = "image"


class ResourceContent(Struct, frozen=True):
    """A resource a tool pointed at (``text`` None: a link) or returned (its text)."""

    uri: str
    name: str
    mime_type: str | None = None
    text: str | None = None
    kind: Literal["resource"] = "resource"


class SessionContent(Struct, frozen=True):
    """A link to a subagent's own session: the one this call runs (``delegate``)."""

    session_id: str
    kind: Literal["session"] = "session"


ToolContent = (
    DiffContent | TerminalContent | TextContent | ImageContent | ResourceContent | SessionContent
)


class Location(Struct, frozen=True):
    """A file (and 1-based line) the call touches, for "follow the agent"."""

    path: str
    line: int | None = None


class ToolCallUpdated(Struct, frozen=True):
    """A tool call changed status, title, arguments, content, locations or output.

    ``output`` is the result text the model gets; ``content`` is what the editor shows (diffs,
    terminals, text). Fields left None are unchanged.
    """

    call_id: str
    status: ToolStatus | None = None
    title: str | None = None
    arguments: dict[str, Any] | None = None
    output: str | None = None
    content: tuple[ToolContent, ...] | None = None
    locations: tuple[Location, ...] | None = None
    checkpoint: int | None = None  # the checkpoint that covers what this call changes
    refused: str | None = None  # the approval gate refused the call: what the model reads
    parent_call_id: str | None = None  # a subagent's call: the ``delegate`` call that runs it
    kind: Literal["tool_call_updated"] = "tool_call_updated"


class PlanEntry(Struct, frozen=True):
    content: str
    status: Literal["pending", "in_progress", "completed"] = "pending"
    priority: Literal["high", "medium", "low"] = "medium"


class PlanUpdated(Struct, frozen=True):
    """The agent's plan, complete."""

    entries: tuple[PlanEntry, ...]
    kind: Literal["plan_updated"] = "plan_updated"


class TurnUsage(Struct, frozen=True):
    """What a turn has asked of the model so far: its requests and their tokens (the session's
    own; a subagent's requests count in its cost, not here)."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


class UsageUpdated(Struct, frozen=True):
    """Context usage after a model call (``turn``: the turn's requests and tokens so far)."""

    used_tokens: int
    context_window: int
    cost_usd: float | None = None
    turn: TurnUsage | None = None
    kind: Literal["usage_updated"] = "usage_updated"


class NoticeRaised(Struct, frozen=True):
    """Something the user should know while it happens (retrying, fallback, blocked file)."""

    severity: Severity
    title: str
    description: str | None = None
    kind: Literal["notice_raised"] = "notice_raised"


class CompactionUpdated(Struct, frozen=True):
    """The conversation is being (or was) shortened to fit the model's window."""

    compaction_id: str
    status: Literal["in_progress", "completed", "failed"]
    summary: str | None = None
    error: str | None = None
    kind: Literal["compaction_updated"] = "compaction_updated"


class ModeChanged(Struct, frozen=True):
    """The session's approval mode changed (the user chose "allow always", or plan mode ended)."""

    mode: str
    kind: Literal["mode_changed"] = "mode_changed"


class SubagentStarted(Struct, frozen=True):
    """A subagent began its work, as a session of its own (``session_id``) that the ``delegate``
    call ``call_id`` runs. ``stop`` stops its work: its turn ends cancelled, the parent's goes
    on, told so."""

    session_id: str
    call_id: str
    title: str
    task: str  # what it was asked: its first message
    stop: Callable[[], None]
    kind: Literal["subagent_started"] = "subagent_started"


class SubagentEvent(Struct, frozen=True):
    """Something a subagent's turn did (its text, thoughts, tool calls, plan, notices; its own
    subagents' events, wrapped again), told as the subagent's."""

    session_id: str  # the subagent's
    call_id: str  # the ``delegate`` call that runs it
    event: Event
    kind: Literal["subagent_event"] = "subagent_event"


class SubagentEnded(Struct, frozen=True):
    """A subagent's work ended: how (``error``: why it failed, when it did)."""

    session_id: str
    stop_reason: StopReason
    error: str | None = None
    kind: Literal["subagent_ended"] = "subagent_ended"


class TurnEnded(Struct, frozen=True):
    stop_reason: StopReason
    kind: Literal["turn_ended"] = "turn_ended"


Event = (
    MessageDelta
    | ThoughtDelta
    | ToolCallStarted
    | ToolCallUpdated
    | PlanUpdated
    | UsageUpdated
    | NoticeRaised
    | CompactionUpdated
    | ModeChanged
    | SubagentStarted
    | SubagentEvent
    | SubagentEnded
    | TurnEnded
)
