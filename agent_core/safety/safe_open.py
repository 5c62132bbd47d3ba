"""Reading a file the workspace supplies, safely: the one way Heron opens files it reads on its
own (context files, command templates, skills and their files, a restore's preview, files an
@-mention links to, the ``.git/config`` the sandbox looks into), as opposed to files the model
asks for through the tools.

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

A folder Heron lists on its own (``.heron/commands``, a skills folder) is opened the same way by
``list_inside``: inside a root after every link, a real folder, walked without following links,
and no more than ``limit`` names; what each name holds is for ``read_inside`` to judge.

The user's own files and folders (``$HERON_HOME``, ``~/.claude``) are not the repository's: the
links in them are the user's and are followed (``read_own``, ``list_own``), but the rest holds,
a regular file, capped, never blocking.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO, NamedTuple

import anyio

from agent_core.errors import HeronError

DEFAULT_CAP = 256 * 1024
DEFAULT_LIMIT = 1000  # names listed in one folder
WORKSPACE = "the workspace"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISREG, "a file"),
)


class UnsafeFile(HeronError):
    """A file Heron was about to read on its own was left unread; the message says why."""


class Read(NamedTuple):
    data: bytes
    truncated: bool  # the file had more than the cap
    size: int  # the file's size when it was opened

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


class Listing(NamedTuple):
    entries: tuple[Path, ...]  # the folder's entries by name, as paths under the folder given
    cut: bool  # the folder had more than the limit; the rest were not looked at


def read_inside(
    path: Path, roots: Sequence[Path], cap: int = DEFAULT_CAP, *, where: str = WORKSPACE
) -> Read:
    """At most ``cap`` bytes of ``path``, which must resolve inside one of ``roots`` to a
    regular file; ``UnsafeFile`` otherwise (``FileNotFoundError`` when it does not exist).
    ``where``: what the roots are, for the reason given when the path leads out of them."""
    real = Path(os.path.realpath(path))
    root = _root_of(real, roots, itself=False)
    if root is None:
        raise UnsafeFile(_outside(path, real, where))
    _require_regular(os.lstat(real))
    fd = _open_beneath(root, real.relative_to(root).parts, folder=False)
    try:
        info = os.fstat(fd)
        _require_regular(info)
        return _read_capped(fd, cap, info.st_size)
    finally:
        os.close(fd)


async def read_safely(
    path: Path, roots: Sequence[Path], cap: int = DEFAULT_CAP, *, where: str = WORKSPACE
) -> Read:
    """``read_inside`` in a worker thread."""
    return await anyio.to_thread.run_sync(lambda: read_inside(path, roots, cap, where=where))


def read_own(path: Path, cap: int = DEFAULT_CAP) -> Read:
    """A file of the user's own, not the workspace's: its links are followed (the user made
    them), and it is read as ``read_inside`` reads, regular, capped, never blocking."""
    real = Path(os.path.realpath(path))
    return read_inside(real, [real.parent], cap)


def open_regular(path: Path) -> BinaryIO:
    """``path`` opened for reading once it is known to be a regular file, without waiting: for
    files whose place the caller has judged already (a tool's path inside the roots). Links
    are followed; a FIFO, socket, device or folder raises ``UnsafeFile``."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | _CLOEXEC)
    try:
        _require_regular(os.fstat(fd))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_from(
    path: Path,
    root: Path | None,
    cap: int = DEFAULT_CAP,
    *,
    where: str = WORKSPACE,
    whole: bool = False,
) -> Read:
    """``read_inside`` one root, or ``read_own`` when there is none (a file of the user's).
    ``whole``: a file over ``cap`` is refused (``UnsafeFile``) rather than cut."""
    read = read_own(path, cap) if root is None else read_inside(path, [root], cap, where=where)
    if whole and read.truncated:
        raise UnsafeFile(f"it is over {cap:,} bytes")
    return read


def list_inside(
    folder: Path, roots: Sequence[Path], limit: int = DEFAULT_LIMIT, *, where: str = WORKSPACE
) -> Listing:
    """The names in ``folder``, which must resolve inside one of ``roots`` (or be one) to a real
    folder; ``UnsafeFile`` otherwise (``FileNotFoundError`` when it does not exist). Sorted;
    no more than ``limit`` are looked at. Nothing in it is opened."""
    real = Path(os.path.realpath(folder))
    root = _root_of(real, roots, itself=True)
    if root is None:
        raise UnsafeFile(_outside(folder, real, where))
    info = os.lstat(real)
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafeFile(f"it is {_kind(info)}, not a folder")
    fd = _open_beneath(root, real.relative_to(root).parts, folder=True)
    try:
        names: list[str] = []
        with os.scandir(fd) as entries:
            for entry in entries:
                if len(names) == limit:
                    return Listing(tuple(folder / n for n in sorted(names)), True)
                names.append(entry.name)
    finally:
        os.close(fd)
    return Listing(tuple(folder / n for n in sorted(names)), False)


def list_own(folder: Path, limit: int = DEFAULT_LIMIT) -> Listing:
    """A folder of the user's own: the folder may be a link (the user's), its entries are
    listed as ``list_inside`` lists them."""
    return list_inside(folder, [Path(os.path.realpath(folder))], limit)


def why_unreadable(exc: OSError | UnsafeFile) -> str:
    """A short reason for a notice: ``UnsafeFile``'s own, or the system's words."""
    if isinstance(exc, UnsafeFile):
        return str(exc)
    return f"unreadable: {exc.strerror or exc}"


def _root_of(real: Path, roots: Sequence[Path], *, itself: bool) -> Path | None:
    """The root ``real`` lies inside (``itself``: or is)."""
    for root in roots:
        resolved = Path(os.path.realpath(root))
        if real == resolved:
            if itself:
                return resolved
        elif real.is_relative_to(resolved):
            return resolved
    return None


def _outside(path: Path, real: Path, where: str) -> str:
    shown = f" (it leads to {real})" if real != path.absolute() else ""
    return f"it lies outside {where}{shown}"


def _kind(info: os.stat_result) -> str:
    return next((name for test, name in _KINDS if test(info.st_mode)), "an unknown kind of file")


def _require_regular(info: os.stat_result) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeFile(f"it is {_kind(info)}, not a regular file")


def _open_beneath(root: Path, parts: Sequence[str], *, folder: bool) -> int:
    """A descriptor for ``root/parts...``, never following a link on the way: a folder
    (``folder``), or a file opened without blocking."""
    fd = _folder_beneath(root, parts if folder else parts[:-1])
    if folder:
        return fd
    flags = os.O_RDONLY | _NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | _CLOEXEC
    try:
        return os.open(parts[-1], flags, dir_fd=fd)
    except OSError as exc:
        if exc.errno == getattr(os, "ELOOP", -1):
            raise UnsafeFile("it was replaced by a link while it was being opened") from exc
        raise
    finally:
        os.close(fd)


def _folder_beneath(root: Path, parts: Sequence[str]) -> int:
    fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    for part in parts:
        try:
            step = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
        except OSError as exc:
            raise UnsafeFile("its path changed while it was being opened") from exc
        finally:
            os.close(fd)
        fd = step
    return fd


def _read_capped(fd: int, cap: int, size: int) -> Read:
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
    return Read(data[:cap], len(data) > cap, size)
