"""The user's prompts in a stored transcript, in order, each with where it starts and the ids of
the replies its turn made: what ``/rewind`` lists and what a rewind names (pure).

A prompt is the run of ``user_message_chunk`` items with one ``messageId`` (one per content
block); its replies are the ``agent_message_chunk`` ids up to the next prompt. A subagent's
items (stored with its own session id) and the items of prompts stored before prompts had ids
belong to no prompt that can be named.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

from msgspec import Struct, field

PREVIEW_CHARS = 80


class PromptMark(Struct):
    message_id: str  # "" for a prompt stored before prompts had ids
    start: int  # the index of its first item in the transcript
    text: str = ""  # its text blocks, joined
    replies: list[str] = field(default_factory=list[str])  # its turn's agent message ids

    @property
    def preview(self) -> str:
        line = " ".join(self.text.split())
        return line if len(line) <= PREVIEW_CHARS else line[: PREVIEW_CHARS - 1] + "…"


def prompts_in(items: Sequence[str]) -> list[PromptMark]:
    """The prompts of a transcript (each item one stored JSON object), oldest first."""
    found: list[PromptMark] = []
    previous = -2  # the index of the last user item seen
    for index, item in enumerate(items):
        if item.startswith('{"sessionId"') or "_message_chunk" not in item:
            continue
        update = cast(dict[str, Any], json.loads(item))
        kind, message_id = update.get("sessionUpdate"), str(update.get("messageId") or "")
        if kind == "user_message_chunk":
            last = found[-1] if found else None
            if last is None or last.message_id != message_id or previous != index - 1:
                last = PromptMark(message_id, index)
                found.append(last)
            previous = index
            content = cast(dict[str, Any], update.get("content") or {})
            if content.get("type") == "text":
                last.text += str(content.get("text", ""))
        elif kind == "agent_message_chunk" and found and message_id not in ("", *found[-1].replies):
            found[-1].replies.append(message_id)
    return found


def first_cut(prompts: Sequence[PromptMark], message_id: str) -> int | None:
    """The index in ``prompts`` of the first prompt a rewind to ``message_id`` takes away: that
    prompt when it names one, the next one when it names a reply (its turn stays); ``len`` when
    nothing follows; None when the session has no such message."""
    for number, prompt in enumerate(prompts):
        if prompt.message_id == message_id:
            return number
        if message_id in prompt.replies:
            return number + 1
    return None
