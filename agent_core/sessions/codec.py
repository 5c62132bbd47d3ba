"""Conversation messages to JSON and back, for the store. Explicit tables, no pickling."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

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
    return json.dumps(asdict(message), ensure_ascii=False, separators=(",", ":"))


def load_message(text: str) -> Message:
    data: dict[str, Any] = json.loads(text)
    parts = tuple(_part(p) for p in data["parts"])
    if data["kind"] == "assistant":
        assistant_parts: tuple[AssistantPart, ...] = parts
        return AssistantMessage(assistant_parts, data.get("message_id", ""))
    user_parts: tuple[UserPart, ...] = parts
    return UserMessage(user_parts)


def _part(data: dict[str, Any]) -> Any:
    if data.get("images"):  # a tool result's images, stored nested
        data = {**data, "images": tuple(ImagePart(**i) for i in data["images"])}
    elif "images" in data:
        data = {**data, "images": ()}
    return PARTS[data["kind"]](**data)


def plain_text(message: Message) -> str:
    """The words of a message, for full-text search."""
    return "\n".join(
        p.text for p in message.parts if isinstance(p, TextPart | ThinkingPart) and p.text
    )
