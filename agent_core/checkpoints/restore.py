"""A restore plan shown and carried out.

What the user reviews: one line per file, and a diff for each text file that gets new content.
What happens when they approve: text files are written through the ``Workspace`` (the editor's
``fs/write_text_file`` when it offers it, so its buffers follow), binary files and symlinks on
disk, deletions on disk (and the folders they leave empty). Every path is checked to lie inside
the workspace root first: a symlinked folder cannot lead a restore elsewhere.

The preview reads each file as it is now by ``safety/safe_open.py``: a file turned into a link
out of the workspace (to ``~/.ssh/id_rsa``), a FIFO or a device is not read, and the list says
why its diff is not shown.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import anyio
from msgspec import Struct

from agent_core.checkpoints.plan import Change, RestorePlan
from agent_core.errors import ToolError
from agent_core.events import DiffContent, TextContent, ToolContent
from agent_core.files.atomic import write_atomically
from agent_core.ports.workspace import Workspace
from agent_core.safety.safe_open import UnsafeFile, read_safely

SYMLINK, EXECUTABLE = "120000", "100755"
PREVIEW_LIMIT = 200_000  # characters of one diff side; a longer file is listed, not shown


class Applied(Struct, frozen=True):
    done: tuple[str, ...]
    failed: tuple[tuple[str, str], ...]  # path, why


async def preview(
    plan: RestorePlan, contents: Mapping[str, bytes], root: Path
) -> tuple[ToolContent, ...]:
    """The list of files, and a diff per text file that gets new content.

    ``contents``: the restored files' bytes by blob id (``Checkpoints.contents``)."""
    lines = [f"{c.action} {c.path}" for c in plan.changes]
    lines += [f"keep {k.path} ({k.reason})" for k in plan.kept]
    diffs: list[ToolContent] = []
    for change in plan.changes:
        if change.target is None or change.target.mode == SYMLINK:
            continue
        new = _shown(contents[change.target.blob])
        try:
            old = _shown(await _read(root / change.path, root)) if change.current else None
        except UnsafeFile as exc:
            lines.append(f"(the diff of {change.path} is not shown: {exc})")
            continue
        if new is not None and (old is not None or change.current is None):
            diffs.append(DiffContent(str(root / change.path), old, new))
    return (TextContent("\n".join(lines)), *diffs)


async def apply(plan: RestorePlan, contents: Mapping[str, bytes], workspace: Workspace) -> Applied:
    root = workspace.roots[0]
    done: list[str] = []
    failed: list[tuple[str, str]] = []
    for change in plan.changes:
        path = root / change.path
        try:
            if not path.parent.resolve().is_relative_to(root):
                raise ToolError("it lies outside the workspace")
            if change.target is None:
                await anyio.to_thread.run_sync(_delete, path, root)
            else:
                await _write(change, path, contents[change.target.blob], workspace)
        except (OSError, ToolError) as exc:
            failed.append((change.path, getattr(exc, "strerror", None) or str(exc)))
        else:
            done.append(change.path)
    return Applied(tuple(done), tuple(failed))


async def _write(change: Change, path: Path, data: bytes, workspace: Workspace) -> None:
    assert change.target is not None
    mode = change.target.mode
    await anyio.to_thread.run_sync(_make_room, path, mode == SYMLINK)
    if mode == SYMLINK:
        await anyio.to_thread.run_sync(path.symlink_to, os.fsdecode(data))
        return
    if (text := _text(data)) is not None:
        await workspace.write_text(path, text)  # through the editor, when it offers it
    else:
        await anyio.to_thread.run_sync(write_atomically, path, data)
    await anyio.to_thread.run_sync(_set_mode, path, 0o755 if mode == EXECUTABLE else 0o644)


def _make_room(path: Path, for_link: bool) -> None:
    """Never write through a symlink; a restored symlink replaces what is there."""
    if path.is_symlink() or (for_link and path.exists()):
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)


def _set_mode(path: Path, wanted: int) -> None:
    if path.stat().st_mode & 0o777 != wanted:
        path.chmod(wanted)


def _delete(path: Path, root: Path) -> None:
    path.unlink(missing_ok=True)
    folder = path.parent
    while folder != root and folder.is_relative_to(root):
        try:
            folder.rmdir()  # only when the deletion left it empty
        except OSError:
            break
        folder = folder.parent


async def _read(path: Path, root: Path) -> bytes | None:
    """The file as it is now (None: too large to show); ``UnsafeFile`` when it is not one to
    open (a link out of the workspace, a FIFO, a device)."""
    try:
        read = await read_safely(path, [root], PREVIEW_LIMIT * 4)
    except OSError:
        return b""
    return None if read.truncated else read.data


def _text(data: bytes) -> str | None:
    """``data`` as text when it is UTF-8 without NUL bytes."""
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _shown(data: bytes | None) -> str | None:
    """``data`` as text for a diff, when it is text and small enough to show."""
    return _text(data) if data is not None and len(data) <= PREVIEW_LIMIT * 4 else None
