"""The ``session_search`` tool's view of the store: the other sessions of a workspace whose
conversation matches, one line each."""

from __future__ import annotations

from pathlib import Path

from agent_core.errors import StorageError, ToolError
from agent_core.sessions.store import SessionStore


class OtherSessions:
    def __init__(self, store: SessionStore, cwd: Path, session_id: str) -> None:
        self.store, self.cwd, self.session_id = store, cwd, session_id

    async def search(self, query: str, limit: int) -> list[str]:
        """A line per match (title, id, snippet), this session's own left out."""
        try:
            hits = await self.store.search(query, cwd=self.cwd, limit=limit)
        except StorageError as exc:
            raise ToolError(f"The session history cannot be searched: {exc}") from exc
        others = [h for h in hits if h.session_id != self.session_id]
        return [f"{h.title or 'Untitled'} ({h.session_id}): {h.snippet}" for h in others]
