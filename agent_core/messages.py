"""Conversation history: provider-neutral, frozen, discriminated by ``kind``.

A conversation is a sequence of ``Message``s with strictly alternating roles: ``UserMessage``
(the user's prompt, or the results of the tool calls the assistant asked for) and
``AssistantMessage`` (text, reasoning and tool calls).
"""

from __future__ import annotations

from typing import Any, Literal

from msgspec import Struct, field


class TextPart(Struct, frozen=True):
    text: str
    kind: Literal["text"] = "text"


class ImagePart(Struct, frozen=True):
    data: str  # base64
    mime_type: str
    kind: Literal["image"] = "image"


class ThinkingPart(Struct, frozen=True):
    text: str
    signature: str | None = None  # providers that sign reasoning need it echoed back
    kind: Literal["thinking"] = "thinking"


class ToolCallPart(Struct, frozen=True):
    call_id: str
    name: str
    arguments: dict[str, Any]
    invalid_arguments: str | None = None  # what the model sent when it was not a JSON object
    kind: Literal["tool_call"] = "tool_call"


class ToolResultPart(Struct, frozen=True):
    call_id: str
    content: str
    is_error: bool = False
    images: tuple[ImagePart, ...] = ()  # what a tool showed (an MCP screenshot, say)
    kind: Literal["tool_result"] = "tool_result"


UserPart = TextPart | ImagePart | ToolResultPart
AssistantPart = TextPart | ThinkingPart | ToolCallPart


class UserMessage(Struct, frozen=True):
    parts: tuple[UserPart, ...]
    # The user's prompt this message carries (its id, as the editor knows it), or "": tool
    # results, a note. Merged messages keep the later prompt's (``History``).
    message_id: str = ""
    kind: Literal["user"] = "user"

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))


class AssistantMessage(Struct, frozen=True):
    parts: tuple[AssistantPart, ...]
    message_id: str = ""
    kind: Literal["assistant"] = "assistant"

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def tool_calls(self) -> tuple[ToolCallPart, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolCallPart))


Message = UserMessage | AssistantMessage


class Usage(Struct, frozen=True):
    """Token counts of one model call."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    extra: dict[str, int] = field(default_factory=dict[str, int])
