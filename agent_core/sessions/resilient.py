"""``ResilientStore``: the session store as the server uses it, where a failure to save never
fails a session.

The disk fills up, ``$HERON_HOME`` cannot be written, ``sessions.db`` is damaged: the store
underneath raises ``StorageError``. Here a failed write marks the session unsaved, logs one
line, and the session goes on in memory (the agent holds its conversation); its user is told
once, through ``notices``, that its history is not being saved and why. An unsaved session is
not written again in this process, even if the disk recovers: a later write that succeeded
would leave a gap in its stored conversation. Other sessions keep trying.

Reads (load, list, search) and deletes still raise ``StorageError``: there is nothing to
answer with, and the server says why instead.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from agent_core.errors import StorageError

if TYPE_CHECKING:
    from agent_core.events import NoticeRaised
    from agent_core.messages import Message
    from agent_core.sessions.store import (
        DisplayItem,
        SearchHit,
        SessionRecord,
        SessionStore,
        StoredSession,
    )

    class DiskStore(SessionStore, Protocol):
        def open(self) -> None:
            """Open it (blocking); raises ``StorageError``."""
            ...

        @property
        def recovered(self) -> str | None:
            """What opening had to do that the user should hear of, or None."""
            ...


log = logging.getLogger("heron.sessions")
UNSAVED_TITLE = "History not saved"
RECOVERED_TITLE = "Session history restarted"


class ResilientStore:
    def __init__(self, store: DiskStore) -> None:
        self._store = store
        self._unsaved: dict[str, str] = {}  # session id -> why its history is not being saved
        self._told: set[str] = set()  # sessions told about theirs
        self._recovery_told = False

    def open(self) -> None:
        """Open the store now (blocking); a failure is logged, and each session hears of it."""
        try:
            self._store.open()
        except StorageError as exc:
            log.warning("session history unavailable: %s", exc)

    def unsaved(self, session_id: str) -> str | None:
        """Why the session's history is not being saved, or None while it is."""
        return self._unsaved.get(session_id)

    def notices(self, session_id: str) -> list[NoticeRaised]:
        """What this session's user has not been told yet: that an unreadable history was moved
        aside (once per process), and why this session is not being saved (once per session)."""
        from agent_core.events import NoticeRaised

        told: list[NoticeRaised] = []
        if not self._recovery_told and (recovered := self._store.recovered):
            self._recovery_told = True
            told.append(NoticeRaised("warning", RECOVERED_TITLE, recovered))
        why = self._unsaved.get(session_id)
        if why is not None and session_id not in self._told:
            self._told.add(session_id)
            told.append(
                NoticeRaised(
                    "warning",
                    UNSAVED_TITLE,
                    f"This session keeps working, but it will not be in the history: {why}. "
                    "`heron doctor` checks the session store.",
                )
            )
        return told

    async def create(self, record: SessionRecord) -> None:
        await self._write(record.session_id, lambda: self._store.create(record))

    async def update(
        self,
        session_id: str,
        *,
        title: str | None = None,
        mode: str | None = None,
        model: str | None = None,
        thought_level: str | None = None,
    ) -> None:
        await self._write(
            session_id,
            lambda: self._store.update(
                session_id, title=title, mode=mode, model=model, thought_level=thought_level
            ),
        )

    async def append(
        self,
        session_id: str,
        messages: Sequence[Message],
        transcript: Sequence[DisplayItem],
        *,
        replace: bool = False,
    ) -> None:
        await self._write(
            session_id,
            lambda: self._store.append(session_id, messages, transcript, replace=replace),
        )

    async def cut_transcript(self, session_id: str, keep: int) -> None:
        await self._write(session_id, lambda: self._store.cut_transcript(session_id, keep))

    async def load(self, session_id: str) -> StoredSession:
        return await self._store.load(session_id)

    async def list(
        self, *, cwd: Path | None, cursor: str | None, limit: int
    ) -> tuple[list[SessionRecord], str | None]:
        return await self._store.list(cwd=cwd, cursor=cursor, limit=limit)

    async def delete(self, session_id: str) -> None:
        await self._store.delete(session_id)
        self._unsaved.pop(session_id, None)

    async def search(self, query: str, *, cwd: Path | None, limit: int) -> list[SearchHit]:
        return await self._store.search(query, cwd=cwd, limit=limit)

    async def close(self) -> None:
        await self._store.close()

    async def _write(self, session_id: str, write: Callable[[], Awaitable[None]]) -> None:
        if session_id in self._unsaved:
            return
        try:
            await write()
        except StorageError as exc:
            self._unsaved[session_id] = str(exc)
            log.warning("session %s is not being saved: %s", session_id, exc)
