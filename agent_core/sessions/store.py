"""The ``SessionStore`` port: where conversations live between turns and restarts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from msgspec import Struct

from agent_core.messages import Message

DisplayItem = dict[str, Any]  # what the editor was shown, opaque to the core (JSON-ready)


class SessionRecord(Struct, frozen=True):
    session_id: str
    cwd: Path
    additional_directories: tuple[Path, ...] = ()
    title: str | None = None
    updated_at: float = 0.0  # seconds since the epoch
    mode: str | None = None
    model: str | None = None  # "<provider>:<model>"
    thought_level: str | None = None


class StoredSession(Struct, frozen=True):
    """A session as stored. A replay sends the transcript's items as they were written (each
    one JSON object's text), and the messages are decoded when they are first used, so that
    a long session's ``session/load`` answers without decoding what it does not show."""

    record: SessionRecord
    messages: Sequence[Message]
    transcript: tuple[str, ...]


class SearchHit(Struct, frozen=True):
    session_id: str
    title: str | None
    snippet: str


class SessionStore(Protocol):
    async def create(self, record: SessionRecord) -> None: ...

    async def update(
        self,
        session_id: str,
        *,
        title: str | None = None,
        mode: str | None = None,
        model: str | None = None,
        thought_level: str | None = None,
    ) -> None:
        """Change what is given and mark the session as just used."""
        ...

    async def append(
        self,
        session_id: str,
        messages: Sequence[Message],
        transcript: Sequence[DisplayItem],
        *,
        replace: bool = False,
    ) -> None:
        """Persist completed messages and display items; committed before returning."""
        ...

    async def cut_transcript(self, session_id: str, keep: int) -> None:
        """Only the first ``keep`` items of the transcript are replayed from now on (a rewind);
        the rest are kept, retired."""
        ...

    async def load(self, session_id: str) -> StoredSession:
        """Raises ``SessionNotFound``."""
        ...

    async def list(
        self, *, cwd: Path | None, cursor: str | None, limit: int
    ) -> tuple[list[SessionRecord], str | None]:
        """Most recently used first; the cursor for the next page, or None. Raises ``ValueError``
        for a cursor it did not make."""
        ...

    async def delete(self, session_id: str) -> None:
        """Idempotent."""
        ...

    async def search(self, query: str, *, cwd: Path | None, limit: int) -> list[SearchHit]: ...

    async def close(self) -> None: ...
