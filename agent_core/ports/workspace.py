"""The ``Workspace`` port: the session's files as the editor (or the disk) provides them."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class Workspace(Protocol):
    """Files of the session's roots; an editor-backed implementation sees unsaved buffers."""

    @property
    def roots(self) -> tuple[Path, ...]:
        """The session's cwd first, then its additional directories (absolute, resolved)."""
        ...

    async def read_text(self, path: Path) -> str:
        """The whole text of ``path`` (the editor's buffer when it has one).

        Raises ``ToolError`` with a message for the model when it cannot be read.
        """
        ...

    async def write_text(self, path: Path, content: str) -> None:
        """Replace the whole content of ``path``, creating it if missing."""
        ...

    async def exists(self, path: Path) -> bool: ...


def resolve(raw: str, roots: tuple[Path, ...]) -> tuple[Path, bool]:
    """``raw`` as an absolute path (relative ones start at the first root), symlinks resolved,
    and whether it lies inside one of ``roots`` (which must be resolved already)."""
    path = Path(raw).expanduser()
    if not path.is_absolute():
        path = roots[0] / path
    resolved = path.resolve()
    return resolved, any(resolved.is_relative_to(root) for root in roots)
