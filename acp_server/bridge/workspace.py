"""``EditorWorkspace``: files through the editor when it offers ``fs/*``, the disk otherwise.

Through the editor, reads see unsaved buffers and writes land in the editor's undo history;
on disk, writes are atomic (temp file + rename), so nothing ever sees half a file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import anyio

from acp_server.jsonrpc.connection import Connection
from acp_server.jsonrpc.errors import RpcError
from agent_core.errors import ToolError
from agent_core.safety.safe_open import UnsafeFile, read_safely

EDITOR_TIMEOUT_S = 30.0
MAX_READ_BYTES = 64 * 1024 * 1024  # a text file read from disk when the editor does not read it


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

    async def read_text(self, path: Path) -> str:
        if self._read_via_editor:
            params = {"sessionId": self._session_id, "path": str(path)}
            try:
                result = await self._connection.request(
                    "fs/read_text_file", params, timeout=EDITOR_TIMEOUT_S
                )
            except RpcError as exc:
                raise ToolError(f"Cannot read {path}: {exc.explained}") from exc
            return str(result["content"])
        try:  # never blocks: a FIFO or device in the workspace is refused, not waited on
            read = await read_safely(path, self._roots, MAX_READ_BYTES)
            if read.truncated:
                raise ToolError(f"{path} is over {MAX_READ_BYTES:,} bytes; search it instead.")
            return read.data.decode("utf-8")
        except FileNotFoundError:
            raise ToolError(f"{path} does not exist.") from None
        except UnicodeDecodeError:
            raise ToolError(f"{path} is not a UTF-8 text file.") from None
        except UnsafeFile as exc:
            if await anyio.Path(path).is_dir():
                raise ToolError(f"{path} is a directory; use find_files to list it.") from None
            raise ToolError(f"Cannot read {path}: {exc}") from None
        except OSError as exc:
            raise ToolError(f"Cannot read {path}: {exc.strerror}") from None

    async def write_text(self, path: Path, content: str) -> None:
        if self._write_via_editor:
            params = {"sessionId": self._session_id, "path": str(path), "content": content}
            try:
                await self._connection.request(
                    "fs/write_text_file", params, timeout=EDITOR_TIMEOUT_S
                )
            except RpcError as exc:
                raise ToolError(f"The editor could not write {path}: {exc.explained}") from exc
            return
        try:
            await anyio.to_thread.run_sync(_atomic_write, path, content)
        except OSError as exc:
            raise ToolError(f"Cannot write {path}: {exc.strerror}") from None

    async def exists(self, path: Path) -> bool:
        return await anyio.Path(path).is_file()


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
