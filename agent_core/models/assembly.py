"""Builds the final assistant message from streamed pieces; shared by every provider adapter.

Adapters call ``text``/``thinking``/``tool_began``/``tool_arguments`` as the provider's events
arrive; each returns the ``StreamEvent`` to yield. ``complete`` parses tool arguments and returns
the ``ResponseCompleted`` that ends the stream.
"""

from __future__ import annotations

import json
from typing import Any, cast

from agent_core.messages import (
    AssistantMessage,
    AssistantPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    Usage,
)
from agent_core.models.base import (
    FinishReason,
    ResponseCompleted,
    TextDelta,
    ThinkingDelta,
    ToolArgumentsDelta,
    ToolCallBegan,
)


class ResponseAssembler:
    def __init__(self) -> None:
        self._parts: list[_Pieces | _PendingCall] = []
        self._calls: dict[str, _PendingCall] = {}

    @property
    def started(self) -> bool:
        """Has anything been streamed? (A retry after this would repeat it to the user.)"""
        return bool(self._parts)

    def text(self, delta: str) -> TextDelta:
        self._pieces("text").add(delta)
        return TextDelta(delta)

    def thinking(self, delta: str) -> ThinkingDelta:
        self._pieces("thinking").add(delta)
        return ThinkingDelta(delta)

    def thinking_signature(self, signature: str) -> None:
        last = self._parts[-1] if self._parts else None
        if isinstance(last, _Pieces) and last.kind == "thinking":
            last.signature = (last.signature or "") + signature

    def tool_began(self, call_id: str, name: str) -> ToolCallBegan:
        call = self._calls[call_id] = _PendingCall(call_id, name)
        self._parts.append(call)
        return ToolCallBegan(call_id, name)

    def tool_arguments(self, call_id: str, fragment: str) -> ToolArgumentsDelta:
        self._calls[call_id].json += fragment
        return ToolArgumentsDelta(call_id, fragment)

    def set_tool_arguments(self, call_id: str, arguments_json: str) -> None:
        """The provider's final, complete arguments (replaces what was streamed)."""
        self._calls[call_id].json = arguments_json

    def so_far(self) -> tuple[AssistantPart, ...]:
        """The text and reasoning received: what a reply cut short keeps (its calls never ran)."""
        return tuple(p.finish() for p in self._parts if isinstance(p, _Pieces))

    def complete(self, finish: FinishReason, usage: Usage) -> ResponseCompleted:
        parts = tuple(p.finish() for p in self._parts)
        if finish == "end_turn" and any(isinstance(p, ToolCallPart) for p in parts):
            finish = "tool_use"
        return ResponseCompleted(AssistantMessage(parts), finish, usage)

    def _pieces(self, kind: str) -> _Pieces:
        last = self._parts[-1] if self._parts else None
        if isinstance(last, _Pieces) and last.kind == kind:
            return last
        pieces = _Pieces(kind)
        self._parts.append(pieces)
        return pieces


class _Pieces:
    """Streamed text of one part, joined once at the end (appending to a str is quadratic)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.pieces: list[str] = []
        self.signature: str | None = None

    def add(self, delta: str) -> None:
        self.pieces.append(delta)

    def finish(self) -> TextPart | ThinkingPart:
        text = "".join(self.pieces)
        return ThinkingPart(text, self.signature) if self.kind == "thinking" else TextPart(text)


class _PendingCall:
    def __init__(self, call_id: str, name: str) -> None:
        self.call_id = call_id
        self.name = name
        self.json = ""

    def finish(self) -> ToolCallPart:
        """The call; arguments that are not a JSON object are kept aside for an error result."""
        try:
            arguments: Any = json.loads(self.json) if self.json.strip() else {}
        except json.JSONDecodeError:
            arguments = None
        if not isinstance(arguments, dict):
            return ToolCallPart(self.call_id, self.name, {}, invalid_arguments=self.json)
        return ToolCallPart(self.call_id, self.name, cast(dict[str, Any], arguments))
