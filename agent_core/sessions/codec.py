"""Conversation messages to JSON and back, for the store. Explicit tables, no pickling."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, overload

from msgspec import to_builtins

from agent_core.files.json_text import compact_json
from agent_core.messages import (
    AssistantMessage,
    AssistantPart,
    ImagePart,
    Message,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    UserMessage,
    UserPart,
)

PARTS: dict[str, type[Any]] = {
    "text": TextPart,
    "image": ImagePart,
    "thinking": ThinkingPart,
    "tool_call": ToolCallPart,
    "tool_result": ToolResultPart,
}


def dump_message(message: Message) -> str:
    return compact_json(to_builtins(message))


def load_message(text: str) -> Message:
    data: dict[str, Any] = json.loads(text)
    parts = tuple(_part(p) for p in data["parts"])
    if data["kind"] == "assistant":
        assistant_parts: tuple[AssistantPart, ...] = parts
        return AssistantMessage(assistant_parts, data.get("message_id", ""))
    user_parts: tuple[UserPart, ...] = parts
    return UserMessage(user_parts, data.get("message_id", ""))


def _part(data: dict[str, Any]) -> Any:
    if data.get("images"):  # a tool result's images, stored nested
        data = {**data, "images": tuple(ImagePart(**i) for i in data["images"])}
    elif "images" in data:
        data = {**data, "images": ()}
    return PARTS[data["kind"]](**data)


def plain_text(message: Message) -> str:
    """The words of a message, for full-text search (a lone surrogate becomes "?")."""
    text = "\n".join(
        p.text for p in message.parts if isinstance(p, TextPart | ThinkingPart) and p.text
    )
    return text.encode(errors="replace").decode()


class StoredMessages(Sequence[Message]):
    """Messages as the store holds them (their JSON), each decoded the first time it is used."""

    def __init__(self, bodies: Sequence[str]) -> None:
        self._bodies = bodies
        self._decoded: list[Message | None] = [None] * len(bodies)

    def __len__(self) -> int:
        return len(self._bodies)

    @overload
    def __getitem__(self, index: int) -> Message: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Message]: ...
    def __getitem__(self, index: int | slice) -> Message | Sequence[Message]:
        if isinstance(index, slice):
            return [self[n] for n in range(*index.indices(len(self)))]
        message = self._decoded[index]
        if message is None:
            message = self._decoded[index] = load_message(self._bodies[index])
        return message
