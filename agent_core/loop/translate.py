"""A model's stream events as turn events, noting what arrived so a cut-off reply keeps it."""

from __future__ import annotations

from agent_core.events import (
    Event,
    MessageDelta,
    NoticeRaised,
    StopReason,
    ThoughtDelta,
    ToolCallStarted,
    ToolCallUpdated,
)
from agent_core.loop.execution import title
from agent_core.loop.preview import partial_arguments
from agent_core.messages import AssistantPart, TextPart, ThinkingPart
from agent_core.models.base import StreamEvent
from agent_core.tools.base import Toolset

FINISH_TO_STOP: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "tool_use": "end_turn",
    "max_tokens": "max_tokens",
    "refusal": "refusal",
}


def translate(
    event: StreamEvent,
    message_id: str,
    partial: list[AssistantPart],
    arguments: dict[str, tuple[str, str]],
    tools: Toolset,
) -> Event | None:
    """A model stream event as a turn event, noting what arrived in ``partial``."""
    if event.kind == "text_delta":
        _extend(partial, TextPart, event.text)
        return MessageDelta(message_id, event.text)
    if event.kind == "thinking_delta":
        _extend(partial, ThinkingPart, event.text)
        return ThoughtDelta(message_id, event.text)
    if event.kind == "tool_call_began":
        arguments[event.call_id] = (event.name, "")
        tool = tools.get(event.name)
        kind = tool.kind if tool else "other"
        return ToolCallStarted(event.call_id, event.name, title(event.name, {}, tools), kind)
    if event.kind == "tool_arguments_delta":
        name, so_far = arguments[event.call_id]
        arguments[event.call_id] = (name, so_far + event.json_fragment)
        preview = partial_arguments(so_far + event.json_fragment)
        if preview is None or preview == partial_arguments(so_far):
            return None
        return ToolCallUpdated(event.call_id, title=title(name, preview, tools), arguments=preview)
    if event.kind == "status_notice":
        return NoticeRaised(event.severity, event.title, event.description)
    return None


def _extend(
    parts: list[AssistantPart], kind: type[TextPart] | type[ThinkingPart], text: str
) -> None:
    if parts and type(parts[-1]) is kind:
        parts[-1] = kind(parts[-1].text + text)  # type: ignore[union-attr]
    else:
        parts.append(kind(text))
