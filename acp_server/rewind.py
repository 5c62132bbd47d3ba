"""Rewind: the conversation, the files or both back to before one of the user's prompts
(``/rewind``, ``session/rewind``, ``session/edit_prompt``; a fork at a message cuts its copy).

*Conversation*: the model's history is cut before that prompt (``loop.rewind.cut_before``) and
saved; the transcript from that prompt on is retired (kept in the store, never replayed). *Files*:
the restore ``/undo`` uses (its plan, its preview, its one question, its rules for files changed
by someone else since), to the checkpoint taken before the first change of that prompt or of a
prompt after it still in the conversation. *Both*: the files are asked about first; declined,
nothing changes. What can refuse (a summary in the way, no such message) is checked before
anything changes. A running turn refuses a rewind (``Session``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from msgspec import Struct
from msgspec.structs import replace

from acp_server.bridge.prompts import PromptMark, first_cut, prompts_in
from agent_core.checkpoints.session import CheckpointError
from agent_core.errors import HeronError

if TYPE_CHECKING:
    from acp_server.session import Session
    from acp_server.session_parts import SessionParts
    from agent_core.messages import Message
    from agent_core.sessions.resilient import ResilientStore
    from agent_core.sessions.store import StoredSession

RestoreMode = Literal["conversation", "files", "both"]
RESTORE_MODES: tuple[RestoreMode, ...] = ("conversation", "files", "both")


class RewindError(HeronError):
    """A rewind that did not happen; nothing changed, and the message says why."""


class NoSuchMessage(RewindError):
    """The message named is not one of the session's (or not one a rewind can name)."""


class Rewound(Struct, frozen=True):
    prompts: tuple[PromptMark, ...]  # the conversation's prompts now
    files: str | None  # what the restore did, in a sentence; None when files were not asked for

    @property
    def message_count(self) -> int:
        """The user's and the agent's messages left (the draft RFD's ``remainingMessageCount``)."""
        return sum(1 + len(p.replies) for p in self.prompts)

    @property
    def last_message_id(self) -> str | None:
        last = self.prompts[-1] if self.prompts else None
        return None if last is None else (last.replies or [last.message_id])[-1] or None


async def prompts_of(store: ResilientStore, session_id: str) -> list[PromptMark]:
    return prompts_in((await store.load(session_id)).transcript)


def fork_point(stored: StoredSession, message_id: str) -> StoredSession:
    """A stored session as a rewind to ``message_id`` would leave its conversation (a fork from
    there starts with it; the files are not touched). Raises ``RewindError``."""
    prompts = prompts_in(stored.transcript)
    gone, later = _gone(prompts, message_id)
    if not gone:
        return stored
    kept = _cut(prompts, stored.messages, gone[0].message_id, later)
    return replace(
        stored, messages=stored.messages[:kept], transcript=stored.transcript[: gone[0].start]
    )


def _gone(
    prompts: Sequence[PromptMark], message_id: str
) -> tuple[Sequence[PromptMark], frozenset[str]]:
    """The prompts a rewind to ``message_id`` takes away, and their ids."""
    first = first_cut(prompts, message_id)
    if first is None:
        raise NoSuchMessage(f"This session has no message {message_id!r}.")
    gone = prompts[first:]
    if gone and not gone[0].message_id:
        raise NoSuchMessage("That prompt was stored before prompts had ids: it cannot be named.")
    return gone, frozenset(p.message_id for p in gone if p.message_id)


def _cut(
    prompts: Sequence[PromptMark],
    messages: Sequence[Message],
    message_id: str,
    later: frozenset[str],
) -> int:
    """``cut_before``, its refusal told with the prompts' numbers."""
    from agent_core.loop.rewind import RewindRefused, cut_before

    try:
        return cut_before(messages, message_id, later)
    except RewindRefused as exc:
        numbers = {p.message_id: n for n, p in enumerate(prompts, 1)}
        earliest = numbers.get(exc.earliest)
        after = (
            f"it can go back to before prompt {earliest} or a later one"
            if earliest
            else "no prompt from there on can be rewound to"
        )
        raise RewindError(f"Nothing was changed. {exc}: {after}.") from None


def listing(prompts: Sequence[PromptMark]) -> str:
    """What ``/rewind`` alone answers: the prompts, numbered."""
    if not prompts:
        return "No prompts yet."
    lines = [
        "Prompts (oldest first). `/rewind <n>` goes back to before prompt n, the conversation "
        "and the files; add `conversation` or `files` for only one of them:"
    ]
    lines += [f"{n}. “{p.preview or '(no text)'}”" for n, p in enumerate(prompts, 1)]
    return "\n".join(lines)


def told(number: int, prompt: PromptMark, restore: RestoreMode, rewound: Rewound) -> str:
    """What ``/rewind <n>`` answers once done."""
    said = [f"Rewound to before prompt {number} (“{prompt.preview or '(no text)'}”)."]
    if restore != "files":
        said.append(f"The conversation now holds {len(rewound.prompts)} earlier prompt(s).")
    if rewound.files is not None:
        said.append(rewound.files)
    return " ".join(said)


class Rewind:
    def __init__(self, session: Session, parts: SessionParts, store: ResilientStore) -> None:
        self.session, self.parts, self.store = session, parts, store

    async def run(self, message_id: str, restore: RestoreMode) -> Rewound:
        """Back to before the prompt ``message_id`` names (a reply: to after its turn)."""
        prompts = await prompts_of(self.store, self.session.id)
        gone, later = _gone(prompts, message_id)
        conversation = restore != "files" and bool(gone)
        if conversation:
            await self._check_cut(prompts, gone[0].message_id, later)
        files, note = await self._files(later) if restore != "conversation" else (None, None)
        if conversation:
            agent = await self.session.ready()
            keep = gone[0].start
            await self.parts.writes.submit(lambda: self.store.cut_transcript(self.session.id, keep))
            await agent.rewind(gone[0].message_id, later)
            prompts = prompts[: len(prompts) - len(gone)]
        if note is not None:
            (await self.session.ready()).remember(note)
        return Rewound(tuple(prompts), files)

    async def _check_cut(
        self, prompts: Sequence[PromptMark], message_id: str, later: frozenset[str]
    ) -> None:
        _cut(prompts, (await self.session.ready()).history, message_id, later)

    async def _files(self, later: frozenset[str]) -> tuple[str, str | None]:
        """The files back to the checkpoint before the first change of a prompt in ``later``;
        what was done, and the note for the model."""
        from acp_server.restore import Restore

        checkpoints = self.parts.checkpoints
        try:
            listed = await checkpoints.listing()
        except CheckpointError as exc:
            raise RewindError(f"Nothing was changed. {exc}") from None
        number = min((c.number for c in listed if c.message_id in later), default=None)
        if number is None:
            return "No file was changed from that prompt on: nothing to restore.", None
        approver = self.parts.permissions.approver
        restored = await Restore(checkpoints, self.parts.workspace, approver, self.session).run(
            number
        )
        if restored.declined:
            raise RewindError("Nothing was changed: the restore of the files was declined.")
        return restored.text, restored.note
