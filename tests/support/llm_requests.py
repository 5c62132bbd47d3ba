"""Reading what Heron sent the fake LLM server: the request bodies it recorded (Anthropic's)."""

from __future__ import annotations

from typing import Any


def last_result(body: dict[str, Any]) -> str:
    """The text of the last tool result in an Anthropic request."""
    for message in reversed(body["messages"]):
        for block in reversed(message["content"]):
            if block.get("type") == "tool_result":
                return str(block["content"])
    raise AssertionError("no tool result")


def system_text(body: dict[str, Any]) -> str:
    """An Anthropic request's system prompt, its blocks joined."""
    return "".join(block["text"] for block in body["system"])
