"""Where a rewind cuts the conversation the model sees.

Each user prompt's message carries the prompt's id (``UserMessage.message_id``); a message that
joined two neighbouring prompts carries the later one's. Rewinding to before prompt *K* drops
the first message that carries *K* or a later prompt, and everything after it.

A compaction replaces the middle of the conversation with a summary and keeps the recent tail,
which starts at a prompt. A prompt inside the summarised middle cannot be cut out of the
summary, so a rewind to it is refused, naming the earliest prompt it can go back to.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from agent_core.context.compaction import SUMMARY_PREFIX
from agent_core.errors import HeronError
from agent_core.messages import AssistantMessage, Message, UserMessage


class RewindRefused(HeronError):
    """The conversation cannot be cut there; ``earliest`` is the first prompt it can be cut
    before (its id), or "" when it can only go back to its very start."""

    def __init__(self, message: str, earliest: str) -> None:
        super().__init__(message)
        self.earliest = earliest


def cut_before(messages: Sequence[Message], prompt: str, later: Collection[str]) -> int:
    """How many messages stay when the conversation goes back to before ``prompt``; ``later``
    holds the ids of ``prompt`` and of every prompt after it. Raises ``RewindRefused``."""
    cut = next((n for n, m in enumerate(messages) if _prompt_of(m) in later), len(messages))
    summary = max((n for n in range(cut) if _is_summary(messages[n])), default=None)
    if summary is None:
        return cut
    tail = next((_prompt_of(m) for m in messages[summary + 1 :] if _prompt_of(m)), "")
    if tail != prompt and (tail in later or not tail):
        raise RewindRefused(
            "That prompt is in the part of the conversation that was compacted into a summary",
            tail if tail in later else "",
        )
    return cut


def _prompt_of(message: Message) -> str:
    return message.message_id if isinstance(message, UserMessage) else ""


def _is_summary(message: Message) -> bool:
    return isinstance(message, AssistantMessage) and message.text.startswith(SUMMARY_PREFIX)
