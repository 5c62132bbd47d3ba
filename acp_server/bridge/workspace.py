"""``EditorWorkspace``: files through the editor when it offers ``fs/*``, the disk otherwise.

Through the editor, reads see unsaved buffers and writes land in the editor's undo history.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import anyio

from acp_server.jsonrpc.connection import Connection

EDITOR_TIMEOUT_S = 30.0


class EditorWorkspace:
    def __init__(
        self,
        connection: Connection,
        session_id: str,
        roots: tuple[Path, ...],
        *,
        read_via_editor: bool,
        write_via_editor: bool,
    ) -> None:
        self._connection = connection
        self._session_id = session_id
        self._roots = roots
        self._read_via_editor = read_via_editor
        self._write_via_editor = write_via_editor

    @property
    def roots(self) -> tuple[Path, ...]:
        return self._roots

    async def read_text(
        self, path: Path, *, line: int | None = None, limit: int | None = None
    ) -> str:
        if self._read_via_editor:
            params: dict[str, Any] = {"sessionId": self._session_id, "path": str(path)}
            if line is not None:
                params["line"] = line
            if limit is not None:
                params["limit"] = limit
            result = await self._connection.request(
                "fs/read_text_file", params, timeout=EDITOR_TIMEOUT_S
            )
            return str(result["content"])
        text = await anyio.Path(path).read_text(encoding="utf-8")
        if line is None and limit is None:
            return text
        lines = text.splitlines(keepends=True)
        start = max((line or 1) - 1, 0)
        return "".join(lines[start : start + limit if limit is not None else None])

    async def write_text(self, path: Path, content: str) -> None:
        if self._write_via_editor:
            params = {"sessionId": self._session_id, "path": str(path), "content": content}
            await self._connection.request("fs/write_text_file", params, timeout=EDITOR_TIMEOUT_S)
            return
        await anyio.to_thread.run_sync(_atomic_write, path, content)


def _atomic_write(path: Path, content: str) -> None:
    """Write a temp file beside ``path`` and rename it over: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".heron-tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(content)
        Path(temp).chmod(mode)
        Path(temp).replace(path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
