"""The ``Workspace`` port: file and terminal access as the editor (or the disk) provides it."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class Workspace(Protocol):
    """Files of the session's roots; an editor-backed implementation sees unsaved buffers."""

    @property
    def roots(self) -> tuple[Path, ...]:
        """The session's cwd first, then its additional directories (absolute, resolved)."""
        ...

    async def read_text(
        self, path: Path, *, line: int | None = None, limit: int | None = None
    ) -> str:
        """The text of ``path`` (1-based ``line``, at most ``limit`` lines)."""
        ...

    async def write_text(self, path: Path, content: str) -> None:
        """Replace the whole content of ``path``, creating it if missing."""
        ...
