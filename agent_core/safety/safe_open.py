"""Reading a file the workspace supplies, safely: the one way Heron opens files it reads on its
own (context files, command templates, skills, a restore's preview), as opposed to files the
model asks for through the tools.

A repository is untrusted input, so such a file may be a link to ``~/.ssh/id_rsa`` or
``/proc/self/environ``, a FIFO that blocks whoever opens it, a device, or a gigabyte. A file is
read only when:

- its path, after every link is resolved, stays inside one of the given roots;
- it is a regular file (checked with ``lstat`` before opening and ``fstat`` after);
- the resolved path is walked from the root one component at a time with ``O_NOFOLLOW``, so a
  link swapped in after the check is refused rather than followed; the last step also has
  ``O_NONBLOCK`` and ``O_NOCTTY``, so opening never waits and never takes a terminal;
- no more than ``cap`` bytes are read (``Read.truncated`` says when there was more).

Anything else raises ``UnsafeFile`` with a reason a user can act on. ``read_safely`` runs the
same in a worker thread, so the event loop never waits on a slow disk.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import anyio

from agent_core.errors import HeronError

DEFAULT_CAP = 256 * 1024
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class UnsafeFile(HeronError):
    """A file Heron was about to read on its own was left unread; the message says why."""


class Read(NamedTuple):
    data: bytes
    truncated: bool  # the file had more than the cap

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


def read_inside(path: Path, roots: Sequence[Path], cap: int = DEFAULT_CAP) -> Read:
    """At most ``cap`` bytes of ``path``, which must resolve inside one of ``roots`` to a
    regular file; ``UnsafeFile`` otherwise (``FileNotFoundError`` when it does not exist)."""
    real = Path(os.path.realpath(path))
    root = _root_of(real, roots)
    if root is None:
        shown = f" (it leads to {real})" if real != path.absolute() else ""
        raise UnsafeFile(f"it lies outside the workspace{shown}")
    _require_regular(os.lstat(real))
    fd = _open_beneath(root, real.relative_to(root).parts)
    try:
        _require_regular(os.fstat(fd))
        return _read_capped(fd, cap)
    finally:
        os.close(fd)


async def read_safely(path: Path, roots: Sequence[Path], cap: int = DEFAULT_CAP) -> Read:
    """``read_inside`` in a worker thread."""
    return await anyio.to_thread.run_sync(read_inside, path, tuple(roots), cap)


def why_unreadable(exc: OSError | UnsafeFile) -> str:
    """A short reason for a notice: ``UnsafeFile``'s own, or the system's words."""
    if isinstance(exc, UnsafeFile):
        return str(exc)
    return f"unreadable: {exc.strerror or exc}"


def _root_of(real: Path, roots: Sequence[Path]) -> Path | None:
    for root in roots:
        resolved = Path(os.path.realpath(root))
        if real != resolved and real.is_relative_to(resolved):
            return resolved
    return None


def _require_regular(info: os.stat_result) -> None:
    if stat.S_ISREG(info.st_mode):
        return
    kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
    raise UnsafeFile(f"it is {kind}, not a regular file")


def _open_beneath(root: Path, parts: Sequence[str]) -> int:
    """A descriptor for ``root/parts...``, never following a link on the way."""
    fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        for part in parts[:-1]:
            try:
                step = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            except OSError as exc:
                raise UnsafeFile("its path changed while it was being opened") from exc
            os.close(fd)
            fd = step
        flags = os.O_RDONLY | _NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | _CLOEXEC
        try:
            return os.open(parts[-1], flags, dir_fd=fd)
        except OSError as exc:
            if exc.errno == getattr(os, "ELOOP", -1):
                raise UnsafeFile("it was replaced by a link while it was being opened") from exc
            raise
    finally:
        os.close(fd)


def _read_capped(fd: int, cap: int) -> Read:
    with contextlib.suppress(OSError):  # a regular file reads the same either way
        os.set_blocking(fd, True)
    chunks: list[bytes] = []
    left = cap + 1
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 16))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    data = b"".join(chunks)
    return Read(data[:cap], len(data) > cap)
