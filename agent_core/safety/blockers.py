"""What in a workspace makes git or ripgrep wait for ever, named for the user.

Git opens every ``.gitignore`` it walks past (``ls-files --exclude-standard``, ``status``) and
the ``.gitattributes`` of a folder whose files it stores; ripgrep opens every ``.gitignore``,
``.ignore`` and ``.rgignore``. A FIFO (or a device) by one of those names is opened and waited
on until something writes to it, which may be never. Any command that can write to the
workspace can make one, so Heron looks in two ways:

- before git runs, at the names already known (the workspace's top-level ones, and whatever
  an earlier look found): a few ``lstat`` calls, nothing a snapshot would notice;
- when a call has been waiting a while (``STALL_S``), a walk of the workspace for such a
  file, to stop waiting at once and say which file is to blame. Only a slow call pays for it
  (and git's first walk of a workspace, which has the walk beside it from the start).
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

# What each reader opens on its walk, by name: a reader is told by the files it opens.
READ_BY_GIT = frozenset({".gitignore", ".gitattributes"})
READ_BY_RIPGREP = frozenset({".gitignore", ".ignore", ".rgignore"})
STALL_S = 1.0  # a call waiting this long has the workspace looked at
WALK_LIMIT_S = 3.0  # the look gives up after this long (a huge tree): the deadline remains
KINDS = {stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device"}


def blocking_kind(mode: int) -> str | None:
    """What a file of ``mode`` is, when opening it would wait; None for any other."""
    return KINDS.get(stat.S_IFMT(mode))


Blocker = tuple[str, str]  # a path relative to the workspace, and what it is


def known_blocker(
    workspace: Path, candidates: Iterable[str], names: frozenset[str] = READ_BY_GIT
) -> Blocker | None:
    """The first of ``candidates`` (paths relative to ``workspace``), or of the top-level
    files of ``names``, that would make their reader wait; None when none would. Costs one
    ``lstat`` each."""
    for relative in (*sorted(names), *candidates):
        try:
            kind = blocking_kind(os.lstat(workspace / relative).st_mode)
        except OSError:
            continue
        if kind is not None:
            return relative, kind
    return None


def find_blockers(
    workspace: Path,
    names: frozenset[str] = READ_BY_GIT,
    limit_s: float = WALK_LIMIT_S,
    stop: threading.Event | None = None,
) -> list[Blocker]:
    """Every file of ``names`` under ``workspace`` that would make its reader wait, found
    within ``limit_s`` (or until ``stop`` is set). Folders named ``.git`` are skipped, as git
    and ripgrep skip them; symlinks are not followed."""
    give_up = time.monotonic() + limit_s
    found: list[Blocker] = []
    folders = [""]
    while folders and time.monotonic() < give_up and not (stop and stop.is_set()):
        relative = folders.pop()
        try:
            entries = list(os.scandir(workspace / relative if relative else workspace))
        except OSError:
            continue
        for entry in entries:
            path = f"{relative}/{entry.name}" if relative else entry.name
            if entry.name in names and (kind := _kind(entry)) is not None:
                found.append((path, kind))
            elif entry.name != ".git" and entry.is_dir(follow_symlinks=False):
                folders.append(path)
    return sorted(found)


def because(found: Sequence[Blocker], reader: str = "git") -> str:
    """Why ``reader`` cannot run here, for the user: the first file found, and the others."""
    (path, kind), others = found[0], [p for p, _ in found[1:]]
    said = f"{path} is {kind}, not a file: {reader} reads it and would wait for ever"
    if others:
        listed = ", ".join(others[:3]) + (" ..." if len(others) > 3 else "")
        said += f" (so are {listed})"
    return f"{said}. Remove it, or make it a regular file"


def _kind(entry: os.DirEntry[str]) -> str | None:
    if entry.is_file(follow_symlinks=False) or entry.is_dir(follow_symlinks=False):
        return None
    try:
        return blocking_kind(entry.stat(follow_symlinks=False).st_mode)
    except OSError:
        return None
