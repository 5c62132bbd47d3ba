"""The ``SessionStore`` port: where conversations live between turns and restarts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol

from agent_core.messages import Message


@dataclass(frozen=True)
class SessionRecord:
    session_id: str
    cwd: Path
    additional_directories: tuple[Path, ...] = ()
    title: str | None = None
    updated_at: datetime | None = None


class SessionStore(Protocol):
    async def create(self, record: SessionRecord) -> None: ...

    async def append(self, session_id: str, message: Message) -> None:
        """Persist one completed message (committed before returning)."""
        ...

    async def load(self, session_id: str) -> tuple[SessionRecord, Sequence[Message]]:
        """Raises ``SessionNotFound``."""
        ...

    async def delete(self, session_id: str) -> None:
        """Idempotent."""
        ...
