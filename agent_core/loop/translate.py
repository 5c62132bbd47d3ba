"""A model's stream events as turn events, noting what arrived so a cut-off reply keeps it."""

from __future__ import annotations

from typing import Any

from agent_core.events import (
    Event,
    MessageDelta,
    NoticeRaised,
    StopReason,
    ThoughtDelta,
    ToolCallStarted,
    ToolCallUpdated,
)
from agent_core.loop.preview import partial_arguments
from agent_core.models.assembly import ResponseAssembler
from agent_core.models.base import StreamEvent
from agent_core.tools.base import Toolset, call_title

FINISH_TO_STOP: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "tool_use": "end_turn",
    "max_tokens": "max_tokens",
    "refusal": "refusal",
}


def translate(
    event: StreamEvent,
    message_id: str,
    received: ResponseAssembler,
    previews: dict[str, ArgumentsPreview],
    tools: Toolset,
) -> Event | None:
    """A model stream event as a turn event, noting what arrived in ``received``."""
    if event.kind == "text_delta":
        received.text(event.text)
        return MessageDelta(message_id, event.text)
    if event.kind == "thinking_delta":
        received.thinking(event.text)
        return ThoughtDelta(message_id, event.text)
    if event.kind == "tool_call_began":
        previews[event.call_id] = ArgumentsPreview(event.name)
        tool = tools.get(event.name)
        kind = tool.kind if tool else "other"
        return ToolCallStarted(event.call_id, event.name, call_title(event.name, {}, tools), kind)
    if event.kind == "tool_arguments_delta":
        preview = previews[event.call_id]
        if (arguments := preview.add(event.json_fragment)) is None:
            return None
        return ToolCallUpdated(
            event.call_id, title=call_title(preview.name, arguments, tools), arguments=arguments
        )
    if event.kind == "status_notice":
        return NoticeRaised(event.severity, event.title, event.description)
    return None


class ArgumentsPreview:
    """A tool call's arguments as they stream in, readable before they are complete."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._json: list[str] = []
        self._shown: dict[str, Any] | None = None

    def add(self, fragment: str) -> dict[str, Any] | None:
        """The arguments so far, when they read differently than the last time; else None."""
        self._json.append(fragment)
        arguments = partial_arguments("".join(self._json))
        if arguments is None or arguments == self._shown:
            return None
        self._shown = arguments
        return arguments
