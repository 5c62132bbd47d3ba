"""Keeping a long conversation inside the model's window.

Two steps, cheapest first: clear the outputs of old tool calls (the model can run them again),
then, if that is not enough, have the model summarise the middle of the conversation. The first
message and the most recent ~20k tokens stay word for word; a tool call and its result are
never separated (the recent part always starts at one of the user's own prompts).
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec.structs import replace

from agent_core.messages import (
    AssistantMessage,
    Message,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    UserMessage,
)

KEEP_RECENT_TOKENS = 20_000
CLEARED = "[output cleared to save context; run the tool again if you need it]"
SUMMARY_SYSTEM = (
    "You summarise a coding agent's conversation so the agent can continue it with less context. "
    "Keep: the user's goals and constraints, decisions made and why, files and functions touched, "
    "commands run and their outcomes, open problems and next steps. Be specific (paths, names, "
    "errors); leave out pleasantries. Write plain Markdown, at most about 600 words."
)
SUMMARY_PREFIX = "(Summary of the earlier conversation, written to save context.)\n\n"


def estimate_tokens(messages: Sequence[Message]) -> int:
    """About four characters a token: good enough to decide when to compact."""
    chars = 0
    for message in messages:
        for part in message.parts:
            match part:
                case TextPart(text=text) | ThinkingPart(text=text):
                    chars += len(text)
                case ToolResultPart(content=content):
                    chars += len(content)
                case ToolCallPart(arguments=arguments):
                    chars += len(str(arguments))
                case _:
                    chars += 1000  # an image
    return chars // 4


def clear_old_tool_outputs(
    history: Sequence[Message], keep_recent: int = KEEP_RECENT_TOKENS
) -> list[Message]:
    """Tool results older than the recent window, replaced by a short note."""
    start = _recent_start(history, keep_recent)
    cleared: list[Message] = []
    for index, message in enumerate(history):
        if index < start and isinstance(message, UserMessage):
            parts = tuple(
                replace(p, content=CLEARED, images=())
                if isinstance(p, ToolResultPart) and (len(p.content) > len(CLEARED) or p.images)
                else p
                for p in message.parts
            )
            message = replace(message, parts=parts)
        cleared.append(message)
    return cleared


def split_for_summary(
    history: Sequence[Message], keep_recent: int = KEEP_RECENT_TOKENS
) -> tuple[Message, list[Message], list[Message]] | None:
    """(first message, middle to summarise, recent tail), or None when there is no middle.

    The tail starts at a prompt of the user's (a user message with no tool results), so no tool
    call is parted from its result.
    """
    start = _recent_start(history, keep_recent)
    prompts = [i for i in range(2, len(history)) if _is_prompt(history[i])]
    cut = max((i for i in prompts if i <= start), default=None) or (prompts[0] if prompts else None)
    if cut is None or cut < 2:
        return None
    return history[0], list(history[1:cut]), list(history[cut:])


def render(messages: Sequence[Message], *, limit: int = 4000) -> str:
    """The middle of a conversation as a transcript for the summariser."""
    lines: list[str] = []
    for message in messages:
        for part in message.parts:
            match part:
                case TextPart(text=text) if text:
                    who = "Assistant" if isinstance(message, AssistantMessage) else "User"
                    lines.append(f"{who}: {text[:limit]}")
                case ToolCallPart(name=name, arguments=arguments):
                    lines.append(f"Tool call {name}: {str(arguments)[:limit]}")
                case ToolResultPart(content=content, is_error=is_error):
                    lines.append(f"Tool {'error' if is_error else 'result'}: {content[:limit]}")
                case _:
                    pass
    return "\n\n".join(lines)


def rebuilt(first: Message, summary: str, tail: Sequence[Message]) -> list[Message]:
    """The history after summarising: roles still alternate (user, summary, user...)."""
    return [first, AssistantMessage((TextPart(SUMMARY_PREFIX + summary),)), *tail]


def _recent_start(history: Sequence[Message], keep_recent: int) -> int:
    total = 0
    for index in range(len(history) - 1, -1, -1):
        total += estimate_tokens(history[index : index + 1])
        if total > keep_recent:
            return index + 1
    return 0


def _is_prompt(message: Message) -> bool:
    return isinstance(message, UserMessage) and not any(
        isinstance(p, ToolResultPart) for p in message.parts
    )
