"""What in a workspace makes git wait for ever, named for the user.

Git opens every ``.gitignore`` it walks past (``ls-files --exclude-standard``, ``status``) and
the ``.gitattributes`` of a folder whose files it stores; a FIFO (or a device) by one of those
names is opened and waited on until something writes to it, which may be never. Any command
that can write to the workspace can make one, so the shadow repository looks in two ways:

- before git runs, a look at the names already known (the workspace's top-level pair, and
  whatever an earlier look found): a few ``lstat`` calls, nothing a snapshot would notice;
- when a git call has been waiting a while (``STALL_S``), a walk of the workspace for such a
  file, to stop waiting at once and say which file is to blame. Only a slow call pays for it.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

OPENED_BY_GIT = frozenset({".gitignore", ".gitattributes"})
STALL_S = 1.0  # a git call waiting this long has the workspace looked at
WALK_LIMIT_S = 3.0  # the look gives up after this long (a huge tree): the deadline remains
KINDS = {stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device"}


def blocking_kind(mode: int) -> str | None:
    """What a file of ``mode`` is, when git would wait on opening it; None for any other."""
    return KINDS.get(stat.S_IFMT(mode))


Blocker = tuple[str, str]  # a path relative to the workspace, and what it is


def known_blocker(workspace: Path, candidates: Iterable[str]) -> Blocker | None:
    """The first of ``candidates`` (paths relative to ``workspace``), or of the top-level
    ``.gitignore`` and ``.gitattributes``, that would make git wait; None when none would.
    Costs one ``lstat`` each."""
    for relative in (*sorted(OPENED_BY_GIT), *candidates):
        try:
            kind = blocking_kind(os.lstat(workspace / relative).st_mode)
        except OSError:
            continue
        if kind is not None:
            return relative, kind
    return None


def find_blockers(workspace: Path, limit_s: float = WALK_LIMIT_S) -> list[Blocker]:
    """Every ``.gitignore`` or ``.gitattributes`` under ``workspace`` git would wait on, found
    within ``limit_s``. Folders named ``.git`` are skipped, as git skips them; symlinks are
    not followed."""
    give_up = time.monotonic() + limit_s
    found: list[Blocker] = []
    folders = [""]
    while folders and time.monotonic() < give_up:
        relative = folders.pop()
        try:
            entries = list(os.scandir(workspace / relative if relative else workspace))
        except OSError:
            continue
        for entry in entries:
            path = f"{relative}/{entry.name}" if relative else entry.name
            if entry.name in OPENED_BY_GIT and (kind := _kind(entry)) is not None:
                found.append((path, kind))
            elif entry.name != ".git" and entry.is_dir(follow_symlinks=False):
                folders.append(path)
    return sorted(found)


def because(found: Sequence[Blocker]) -> str:
    """Why a snapshot cannot be taken, for the user: the first file found, and the others."""
    (path, kind), others = found[0], [p for p, _ in found[1:]]
    said = f"{path} is {kind}, not a file, and git waits for ever on opening it"
    if others:
        listed = ", ".join(others[:3]) + (" ..." if len(others) > 3 else "")
        said += f" (so would it on {listed})"
    return f"{said}. Remove it, or make it a file, to get checkpoints back"


def _kind(entry: os.DirEntry[str]) -> str | None:
    if entry.is_file(follow_symlinks=False) or entry.is_dir(follow_symlinks=False):
        return None
    try:
        return blocking_kind(entry.stat(follow_symlinks=False).st_mode)
    except OSError:
        return None
