"""A conversation every provider accepts, whatever happened to the process that wrote it.

Providers reject a history whose tool calls and results do not pair up: Anthropic wants every
``tool_use`` answered by a ``tool_result`` at the start of the very next user message, the
Responses API a ``function_call_output`` for each ``call_id`` it was given and none for an id it
was not, Chat Completions a ``tool`` message for each ``tool_call`` id before anything else. A
history stored by a process that was killed while a tool ran ends with calls and no results;
one edited by an older version may hold results that answer nothing. ``well_formed`` mends
both, and says which calls it had to answer itself, so the editor can show them as failed.
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct

from agent_core.messages import (
    AssistantMessage,
    Message,
    ToolCallPart,
    ToolResultPart,
    UserMessage,
    UserPart,
)

INTERRUPTED_RESULT = "interrupted: Heron stopped before this finished"


class History:
    """The conversation as the agent keeps it: roles alternating, mended before it is sent, and
    what the store has not been given yet.

    Its cost per model request does not grow with its length: the messages before the last
    assistant message never change again and were found well-formed, so ``mend`` looks only
    at the rest, and the tuple of messages is made again only after a change.
    """

    def __init__(self, stored: Sequence[Message] = ()) -> None:
        self._messages: list[Message] = []
        self._unsaved: list[Message] = []
        self._rewritten = False  # replaced: the next save replaces the stored history too
        self._sound = 0  # the messages before this index are well-formed and final
        self._snapshot: tuple[Message, ...] | None = None
        for message in stored:  # stored pieces merge back exactly as they did live
            self._merge(message)
        self.interrupted = self.mend()  # the calls a stopped process left without results

    @property
    def messages(self) -> tuple[Message, ...]:
        if self._snapshot is None:
            self._snapshot = tuple(self._messages)
        return self._snapshot

    @property
    def last(self) -> Message | None:
        return self._messages[-1] if self._messages else None

    def add(self, message: Message) -> None:
        self._unsaved.append(message)
        self._merge(message)

    def replace(self, messages: Sequence[Message]) -> None:
        self._messages, self._rewritten = list(messages), True
        self._sound, self._snapshot = 0, None

    def mend(self) -> tuple[ToolCallPart, ...]:
        """Make it one every provider accepts (see ``well_formed``); the calls it answered."""
        start = self._sound  # an assistant message (or 0): the rest can be judged on its own
        repaired = well_formed(self._messages[start:])
        if repaired.changed:
            self.replace([*self._messages[:start], *repaired.messages])
        self._sound = next(
            (n for n in range(len(self._messages) - 1, start - 1, -1)
             if isinstance(self._messages[n], AssistantMessage)),
            start,
        )  # fmt: skip
        return repaired.interrupted

    def unsaved(self) -> tuple[tuple[Message, ...], bool] | None:
        """Once: what the store has not been given, and whether it replaces what is stored."""
        if self._rewritten:
            self._rewritten, self._unsaved = False, []
            return self.messages, True
        if not self._unsaved:
            return None
        pending, self._unsaved = self._unsaved, []
        return tuple(pending), False

    def _merge(self, message: Message) -> None:
        """Consecutive user content is one message, as providers want the roles alternating."""
        last, self._snapshot = self.last, None
        if isinstance(message, UserMessage) and isinstance(last, UserMessage):
            self._messages[-1] = joined(last, message)
        else:
            self._messages.append(message)


class WellFormed(Struct, frozen=True):
    messages: tuple[Message, ...]
    interrupted: tuple[ToolCallPart, ...] = ()  # calls that were given INTERRUPTED_RESULT
    changed: bool = False


def well_formed(messages: Sequence[Message]) -> WellFormed:
    """``messages`` with roles alternating, no empty message, and every tool call answered
    exactly once, first thing in the next message; unchanged (and cheap) when already so."""
    if _already_well_formed(messages):
        return WellFormed(tuple(messages))
    merged = _alternating([m for m in messages if m.parts])
    out: list[Message] = []
    interrupted: list[ToolCallPart] = []
    for index, message in enumerate(merged):
        if isinstance(message, AssistantMessage):
            out.append(message)
            following = merged[index + 1] if index + 1 < len(merged) else None
            if message.tool_calls and not isinstance(following, UserMessage):
                interrupted += message.tool_calls
                out.append(UserMessage(tuple(map(_interrupted, message.tool_calls))))
            continue
        previous = out[-1] if out else None
        calls = previous.tool_calls if isinstance(previous, AssistantMessage) else ()
        answered, missing = _answered(message, calls)
        interrupted += missing
        if answered.parts:
            out.append(answered)
    return WellFormed(tuple(_alternating(out)), tuple(interrupted), changed=True)


def unanswered_at_end(messages: Sequence[Message]) -> bool:
    """Whether the last tool calls lack results, as a process killed while a tool ran leaves
    them; it reads the last two messages only (a long stored session stays undecoded)."""
    tail = messages[-2:] if len(messages) >= 2 else messages[:]
    calls = next((m.tool_calls for m in reversed(tail) if isinstance(m, AssistantMessage)), ())
    if not calls:
        return False
    last = tail[-1]
    answered = {p.call_id for p in last.parts if isinstance(p, ToolResultPart)}
    return isinstance(last, AssistantMessage) or any(c.call_id not in answered for c in calls)


def _already_well_formed(messages: Sequence[Message]) -> bool:
    calls: tuple[ToolCallPart, ...] = ()
    previous: Message | None = None
    for message in messages:
        if not message.parts or type(message) is type(previous):
            return False
        if isinstance(message, AssistantMessage):
            calls = message.tool_calls
        else:
            results = [p for p in message.parts if isinstance(p, ToolResultPart)]
            if message.parts[: len(results)] != tuple(results):  # results first
                return False
            if [r.call_id for r in results] != [c.call_id for c in calls]:
                return False
            calls = ()
        previous = message
    return not calls


def joined(first: UserMessage, then: UserMessage) -> UserMessage:
    """Two neighbouring user messages as one, carrying the later prompt's id: a rewind to
    before that prompt takes the whole message (``rewind.cut_before``)."""
    return UserMessage(first.parts + then.parts, then.message_id or first.message_id)


def _alternating(messages: list[Message]) -> list[Message]:
    """Neighbours of one role become one message, as the loop itself keeps them."""
    out: list[Message] = []
    for message in messages:
        last = out[-1] if out else None
        if isinstance(message, UserMessage) and isinstance(last, UserMessage):
            out[-1] = joined(last, message)
        elif isinstance(message, AssistantMessage) and isinstance(last, AssistantMessage):
            out[-1] = AssistantMessage(last.parts + message.parts, last.message_id)
        else:
            out.append(message)
    return out


def _answered(
    message: UserMessage, calls: tuple[ToolCallPart, ...]
) -> tuple[UserMessage, list[ToolCallPart]]:
    """The message with one result per call, in call order, first; results that answer no
    call of the message before are dropped. Also the calls that had no result."""
    results: dict[str, ToolResultPart] = {}
    rest: list[UserPart] = []
    for part in message.parts:
        if isinstance(part, ToolResultPart):
            results.setdefault(part.call_id, part)
        else:
            rest.append(part)
    missing = [c for c in calls if c.call_id not in results]
    ordered = [results.get(c.call_id) or _interrupted(c) for c in calls]
    return UserMessage((*ordered, *rest), message.message_id), missing


def _interrupted(call: ToolCallPart) -> ToolResultPart:
    return ToolResultPart(call.call_id, INTERRUPTED_RESULT, is_error=True)
