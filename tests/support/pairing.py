"""The providers' rules for tool calls and their results, checked as the real APIs check them.

The fake LLM server answers a request that breaks them with the 400 the provider would send,
so every end-to-end test also shows that Heron never sends a conversation a provider rejects.
Each function returns what the provider would complain about, or None.
"""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]


def anthropic_problem(body: JSON) -> str | None:
    """Messages API: a ``tool_use`` is answered by a ``tool_result`` in the very next (user)
    message, results first; a result answers a ``tool_use`` of the message just before it."""
    messages: list[JSON] = body.get("messages") or []
    if messages and messages[0].get("role") != "user":
        return "messages: the first message must use the user role"
    asked: list[str] = []
    for number, message in enumerate(messages):
        blocks = message.get("content")
        blocks = [{"type": "text", "text": blocks}] if isinstance(blocks, str) else blocks or []
        if not blocks:
            return f"messages.{number}: all messages must have non-empty content"
        if message.get("role") == "assistant":
            if asked:
                return f"messages.{number}: tool_use ids without tool_result blocks: {asked}"
            asked = [b["id"] for b in blocks if b.get("type") == "tool_use"]
            continue
        kinds = [b.get("type") for b in blocks]
        results = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
        if kinds[: len(results)] != ["tool_result"] * len(results):
            return f"messages.{number}: tool_result blocks must come first"
        if unexpected := [r for r in results if r not in asked]:
            return f"messages.{number}: unexpected tool_use_id in tool_result blocks: {unexpected}"
        if missing := [a for a in asked if a not in results]:
            return (
                f"messages.{number}: tool_use ids were found without tool_result blocks: {missing}"
            )
        asked = []
    if asked:
        return f"the last message's tool_use ids have no tool_result blocks: {asked}"
    return None


def responses_problem(body: JSON) -> str | None:
    """Responses API: each ``function_call_output`` names a ``function_call`` before it, and
    every ``function_call`` in the input has its output."""
    items = body.get("input")
    if not isinstance(items, list):
        return None
    calls: list[str] = []
    outputs: list[str] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "function_call":
            calls.append(item["call_id"])
        elif item.get("type") == "function_call_output":
            if item["call_id"] not in calls:
                return (
                    f"No tool call found for function call output with call_id {item['call_id']}."
                )
            outputs.append(item["call_id"])
    if missing := [c for c in calls if c not in outputs]:
        return f"No tool output found for function call {missing[0]}."
    return None


def chat_problem(body: JSON) -> str | None:
    """Chat Completions: an assistant message with ``tool_calls`` is followed by one ``tool``
    message per id before any other message, and a ``tool`` message follows such a call."""
    messages: list[JSON] = body.get("messages") or []
    waiting: list[str] = []
    for number, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            if message.get("tool_call_id") not in waiting:
                return (
                    f"messages.[{number}].role: messages with role 'tool' must be a response "
                    "to a preceeding message with 'tool_calls'."
                )
            waiting.remove(message["tool_call_id"])
            continue
        if waiting:
            return (
                "An assistant message with 'tool_calls' must be followed by tool messages "
                f"responding to each 'tool_call_id'. The following tool_call_ids did not have "
                f"response messages: {', '.join(waiting)}"
            )
        if role == "assistant":
            waiting = [c["id"] for c in message.get("tool_calls") or []]
    if waiting:
        return f"tool_call_ids without response messages: {', '.join(waiting)}"
    return None
