"""Reading the ``session/update``s an editor received: by kind, the text, each tool call's."""

from __future__ import annotations

from typing import Any

Update = dict[str, Any]


def of_kind(updates: list[Update], kind: str) -> list[Update]:
    return [u for u in updates if u["sessionUpdate"] == kind]


def text_of(updates: list[Update], kind: str = "agent_message_chunk") -> str:
    """The text of the chunks of ``kind`` (the agent's message unless told), joined."""
    return "".join(u["content"]["text"] for u in of_kind(updates, kind))


def tool_updates(updates: list[Update], name: str | None = None) -> dict[str, list[Update]]:
    """Every update of every tool call, by call id (only calls of tool ``name`` when given)."""
    calls: dict[str, list[Update]] = {}
    for u in updates:
        if u["sessionUpdate"] in ("tool_call", "tool_call_update"):
            calls.setdefault(u["toolCallId"], []).append(u)
    return {k: v for k, v in calls.items() if name is None or v[0].get("name") == name}


def final(updates: list[Update]) -> Update:
    """One tool call's last update that finished it (completed or failed)."""
    return next(u for u in reversed(updates) if u.get("status") in ("completed", "failed"))


def a_message_chunk(message: dict[str, Any]) -> bool:
    """Is this message an agent_message_chunk update (a turn under way)?"""
    return (
        message.get("method") == "session/update"
        and message["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
    )
