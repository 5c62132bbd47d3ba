"""``sessions.db`` on disk: why it cannot be used, in words, and an unreadable one moved aside.

Heron never deletes a history it cannot read. What is at ``sessions.db`` when SQLite says it is
not a database, or a damaged one, or when it is not a file at all, is renamed to
``sessions-unreadable-<time>.db`` beside it (its ``-wal`` and ``-shm`` files with it, so SQLite
can still open the two together), and a fresh history is started. ``heron doctor`` lists what
was moved aside. Nothing else is ever moved: a busy, full or read-only database stays where it is.
"""

from __future__ import annotations

import contextlib
import os
import resource
import stat
import time
from pathlib import Path

SQLITE_HEADER = b"SQLite format 3\x00"
ASIDE_MARK = "-unreadable-"
SIDE_FILES = ("-wal", "-shm")  # SQLite's companions of a database, named after it
FULL_BELOW_BYTES = 1 << 20
MOVED_NEXT_TIME = "Heron moves it aside, unchanged, and starts a new history when it next runs"

# SQLite's primary result codes that mean the file or the disk, not the query.
SQLITE_PERM, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_NOMEM, SQLITE_READONLY = 3, 5, 6, 7, 8
SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_PROTOCOL = 10, 11, 13, 14, 15
SQLITE_NOLFS, SQLITE_NOTADB = 22, 26
UNREADABLE_CODES = frozenset({SQLITE_CORRUPT, SQLITE_NOTADB})
STORAGE_CODES = UNREADABLE_CODES | {
    SQLITE_PERM,
    SQLITE_BUSY,
    SQLITE_LOCKED,
    SQLITE_NOMEM,
    SQLITE_READONLY,
    SQLITE_IOERR,
    SQLITE_FULL,
    SQLITE_CANTOPEN,
    SQLITE_PROTOCOL,
    SQLITE_NOLFS,
}


def primary_code(exc: BaseException) -> int | None:
    """SQLite's primary result code of ``exc``, or None for anything SQLite did not raise."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def is_storage_failure(exc: BaseException) -> bool:
    """The disk or the file failed (not a bug in a query): the store cannot be used now."""
    return isinstance(exc, OSError) or primary_code(exc) in STORAGE_CODES


def is_unreadable(exc: BaseException) -> bool:
    """SQLite says the file is not a database, or a damaged one."""
    return primary_code(exc) in UNREADABLE_CODES


def not_a_file(path: Path) -> str | None:
    """Why what is at ``path`` cannot be a database (a folder, a pipe, a broken link), or None
    when it is a regular file or nothing at all."""
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "a broken link" if path.is_symlink() else None
    if stat.S_ISREG(mode):
        return None
    return "a folder, not a file" if stat.S_ISDIR(mode) else "not a regular file"


def not_a_database(path: Path) -> str | None:
    """Why the file at ``path`` is not an SQLite database, judged by its first bytes before
    SQLite opens it (SQLite deletes a ``-wal`` it cannot use when it closes), or None. An empty
    file is an empty database."""
    try:
        with path.open("rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return None
    return "file is not a database" if head and head != SQLITE_HEADER else None


def identity(path: Path) -> tuple[int, int] | None:
    """Which file is at ``path`` (device and inode): another Heron may have replaced it."""
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_dev, found.st_ino


def aside_path(path: Path, when: float) -> Path:
    """Where the unreadable ``path`` goes: ``<stem>-unreadable-<local time>.db``, numbered when
    that name (or its WAL's) is taken."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
    for n in range(1, 1000):
        suffix = "" if n == 1 else f"-{n}"
        target = path.with_name(f"{path.stem}{ASIDE_MARK}{stamp}{suffix}{path.suffix}")
        taken = [Path(f"{target}{side}") for side in SIDE_FILES] + [target]
        if not any(os.path.lexists(p) for p in taken):
            return target
    raise FileExistsError(f"no free name beside {path}")


def move_aside(path: Path) -> Path:
    """Rename ``path`` (and its ``-wal`` and ``-shm``) out of the way; returns its new name."""
    target = aside_path(path, time.time())
    path.rename(target)
    for side in SIDE_FILES:
        companion = Path(f"{path}{side}")
        if os.path.lexists(companion):
            companion.rename(f"{target}{side}")
    return target


def moved_aside(path: Path) -> list[Path]:
    """What was moved aside from ``path`` so far, oldest first (for ``heron doctor``)."""
    pattern = f"{path.stem}{ASIDE_MARK}*{path.suffix}"
    try:
        return sorted(path.parent.glob(pattern))
    except OSError:
        return []


def reason(exc: BaseException, path: Path) -> str:
    """``exc`` in words, for the user: the OS's or SQLite's message, and for an I/O error
    what is most likely behind it (a full disk, a file size limit)."""
    if isinstance(exc, NotADirectoryError | FileExistsError):  # a folder that cannot be made
        in_the_way = _file_in_the_way(Path(exc.filename or path))
        if in_the_way is not None:
            return f"{in_the_way} is a file, where a folder should be"
    if isinstance(exc, OSError):
        said = exc.strerror or str(exc)
        named = exc.filename and Path(exc.filename) != path
        return f"{said}: {exc.filename}" if named else said
    said = str(exc)
    if primary_code(exc) == SQLITE_IOERR and (likely := _likely_io_cause(path)):
        said += f" ({likely})"
    return said


def _file_in_the_way(path: Path) -> Path | None:
    """The first of ``path`` and its parents, from the top, that is there but not a folder."""
    for step in (*reversed(path.parents), path):
        if step.exists() and not step.is_dir():
            return step
    return None


def _likely_io_cause(path: Path) -> str | None:
    try:
        found = os.statvfs(path.parent)
    except OSError:
        found = None
    if found is not None and found.f_bavail * found.f_frsize < FULL_BELOW_BYTES:
        return "the disk is full"
    limit, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    if limit != resource.RLIM_INFINITY:
        return f"the file size limit is {limit:,} bytes"
    return None


def diagnose(path: Path) -> tuple[bool, str]:
    """Whether the history at ``path`` can be used, and what to say about it (``heron doctor``):
    opened read-only and checked, never moved or changed."""
    import sqlite3

    problem = not_a_file(path)
    if problem is not None:
        return False, f"{path} is {problem}; {MOVED_NEXT_TIME}"
    if not path.exists():
        return True, f"{path} (none yet; made with the first session)"
    try:
        problem = not_a_database(path)
    except OSError as exc:
        return False, f"{path} cannot be opened: {reason(exc, path)}"
    if problem is not None:
        return False, f"{path} cannot be read ({problem}); {MOVED_NEXT_TIME}"
    try:
        uri = f"{path.absolute().as_uri()}?mode=ro"
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as db:
            found = [row[0] for row in db.execute("PRAGMA quick_check")]
            if found != ["ok"]:
                return False, (
                    f"{path} is damaged ({found[0]}); rename it to keep it, and Heron starts "
                    "a new history"
                )
            tables = [row[0] for row in db.execute("SELECT name FROM sqlite_schema")]
            query = "SELECT count(*) FROM sessions" if "sessions" in tables else "SELECT 0"
            count = db.execute(query).fetchone()[0]
    except sqlite3.Error as exc:
        if is_unreadable(exc):
            return False, f"{path} cannot be read ({exc}); {MOVED_NEXT_TIME}"
        return False, f"{path} cannot be opened: {reason(exc, path)}"
    return True, f"{path} ({count} session{'s' if count != 1 else ''})"
