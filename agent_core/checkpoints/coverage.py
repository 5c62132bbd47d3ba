"""Whether a turn's checkpoint keeps files as they are now, so that ``/undo`` brings them back:
what lets a command that empties them in place (``: > f``, ``truncate -s 0 f``) run unasked.

A file is kept when its current bytes are what the turn's "before" snapshot holds at its path.
A file that is not there says why: the workspace's ignore files leave it out, it is over the
size limit, the snapshot stopped at the file limit, git will not store its name, or it was
written after the checkpoint was taken. A path that does not exist loses nothing; a folder,
something that is not a file, a path outside the workspace or one known only at run time is
not vouched for.

Cost, for the few paths a command names: one ``git ls-tree`` of those paths in the snapshot,
each file found there read once and hashed (at most ``max_file_size`` bytes), and, only when one
is missing, one ``git check-ignore`` to say why. No walk of the workspace. Blocking: run it in
a worker thread, under the work's watch (``Checkpoints._in_thread``).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct

from agent_core.checkpoints.shadow import Entry, ShadowRepository, refused_name

SYMLINK = "120000"


class Coverage(Struct, frozen=True):
    """What ``Checkpoints.covers`` answers."""

    why_not: str | None = None  # why a file is not kept, for the user; None: every one is

    @property
    def complete(self) -> bool:
        return self.why_not is None


def coverage(
    shadow: ShadowRepository, snapshot: str, partial: bool, paths: Sequence[str | None]
) -> Coverage:
    """Whether ``snapshot`` (a commit or tree) keeps each of ``paths`` (relative to the
    workspace, or absolute; None: known only at run time) as it is now. ``partial``: the
    snapshot stopped at the file limit."""
    if any(p is None for p in paths):
        return Coverage("the files it empties are only known when it runs")
    files: list[tuple[str, os.stat_result]] = []
    for raw in (p for p in paths if p is not None):
        relative = _inside(shadow.workspace, raw)
        if relative is None:
            return Coverage(f"{raw} is outside the workspace")
        try:
            info = os.lstat(shadow.workspace / relative)
        except FileNotFoundError:
            continue  # nothing there to lose
        if stat.S_ISDIR(info.st_mode):
            return Coverage(f"{raw} is a folder, whose files are not checked one by one")
        if not stat.S_ISREG(info.st_mode):
            return Coverage(f"{raw} is not a regular file")
        files.append((relative, info))
    if not files:
        return Coverage()
    kept = shadow.tree_entries(snapshot, [path for path, _ in files])
    missing: list[str] = []
    for path, info in files:
        if info.st_size > shadow.max_file_size:
            return Coverage(
                f"{path} is over the checkpoints' size limit ({shadow.max_file_size:,} bytes)"
            )
        entry = kept.get(path)
        if entry is None:
            missing.append(path)
        elif not _same(shadow.workspace / path, entry):
            return Coverage(f"{path} was changed after this turn's checkpoint was taken")
    if not missing:
        return Coverage()
    return Coverage(_why_missing(shadow, missing, partial))


def _why_missing(shadow: ShadowRepository, missing: list[str], partial: bool) -> str:
    """Why files that exist are not in the snapshot."""
    if refused := [p for p in missing if refused_name(p.encode("utf-8", "surrogateescape"))]:
        return f"git will not store the name {refused[0]}"
    if ignored := shadow.ignored(missing):
        first = next(p for p in missing if p in ignored)
        return f"{first} is ignored (.gitignore), and checkpoints leave ignored files out"
    if partial:
        return (
            f"{missing[0]} is past the checkpoints' file limit ({shadow.max_files:,} files): "
            "this turn's checkpoint is partial"
        )
    return f"{missing[0]} was written after this turn's checkpoint was taken"


def _inside(workspace: Path, raw: str) -> str | None:
    """``raw`` relative to the workspace, links resolved; None when it leads outside."""
    if raw.startswith("~"):
        return None
    root = Path(os.path.realpath(workspace))
    real = Path(os.path.realpath(workspace / raw))
    if real == root or not real.is_relative_to(root):
        return None
    return real.relative_to(root).as_posix()


def _same(path: Path, entry: Entry) -> bool:
    """Whether the file at ``path`` holds what ``entry`` kept: its bytes, by git's blob id.
    Opened without following a link and without waiting (a FIFO swapped in is not read)."""
    if entry.mode == SYMLINK:
        return False  # a file now, where a link was
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return False
        digest = hashlib.sha1(b"blob %d\0" % info.st_size)
        left = info.st_size
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            digest.update(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    return left == 0 and digest.hexdigest() == entry.blob
