"""Linux's inotify, read on the event loop: where the watcher's changes come from on Linux.

libc's three calls through ``ctypes`` (which Heron loads anyway to keep its memory out of its
commands' reach, ``safety.process``); the events read from a non-blocking descriptor whenever
the event loop finds it readable. No thread waits and no native module is loaded: a portable
watcher (``portable.py``) cost ~1.6 MB and a thread per watch for the same work.

A deep watch is one inotify watch per folder below its root, laid as the folders are found and
as new ones appear; links below the root are not followed, and one root's watch stops at
``MOST_FOLDERS`` (a tree that large is not what Heron reads, and inotify's watches are a
per-user budget). Events are read in steps of ``STEP_MS`` once a change wakes the watch, and
grouped as the portable watcher groups them: a batch ends after a step with no relevant
change, or ``DEBOUNCE_MS`` after it began.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import struct
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import anyio
import anyio.lowlevel

from agent_core.watching.sources import DEBOUNCE_MS, STEP_MS, Stop

IN_MODIFY = 0x2
IN_ATTRIB = 0x4
IN_CLOSE_WRITE = 0x8
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000  # the kernel's queue overflowed: changes were lost
IN_IGNORED = 0x8000  # the watch is gone (its folder was deleted, or it was removed)
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_ISDIR = 0x40000000

CHANGES = (
    IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
    | IN_DELETE_SELF | IN_MOVE_SELF
)  # fmt: skip
ARRIVED = IN_CREATE | IN_MOVED_TO
HEADER = struct.Struct("iIII")  # struct inotify_event: wd, mask, cookie, len; then the name
READ_SIZE = 64 * 1024
MOST_FOLDERS = 4096  # folders one watch may follow


class Event(NamedTuple):
    watch: int  # the watch descriptor; -1 for IN_Q_OVERFLOW
    mask: int
    name: str  # the entry's name in the watched folder; "" for the folder itself


def parse(buffer: bytes) -> Iterator[Event]:
    """The events in what one ``read`` of an inotify descriptor returned (pure)."""
    offset = 0
    while offset + HEADER.size <= len(buffer):
        watch, mask, _cookie, length = HEADER.unpack_from(buffer, offset)
        start = offset + HEADER.size
        name = buffer[start : start + length].split(b"\0", 1)[0]
        yield Event(watch, mask, os.fsdecode(name))
        offset = start + length


class TooManyFolders(OSError):
    """More folders below a deep watch than ``MOST_FOLDERS``."""


class Inotify:
    """One inotify descriptor and what its watches follow: folders alone (``deep=False``) or
    with every folder below them."""

    def __init__(self) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self.fd: int = self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            raise self._error("inotify_init1", None)
        self._folders: dict[int, Path] = {}  # watch descriptor -> the folder it follows
        self._deep: set[int] = set()  # the watches whose new sub-folders are followed too
        self.roots: frozenset[Path] = frozenset()  # told as changed when events were lost

    def close(self) -> None:
        os.close(self.fd)

    def __enter__(self) -> Inotify:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def follow(self, folders: frozenset[Path], *, deep: bool) -> None:
        """Watch each folder (it may be a link: the user's folders may be), and with ``deep``
        every folder below it (links there are not followed)."""
        self.roots |= folders
        for folder in sorted(folders):
            watch = self._add(folder, follow=True)
            if deep:
                self._deep.add(watch)
                self._follow_below(folder)

    def read(self) -> set[Path]:
        """The paths changed since the last read (new sub-folders of deep watches followed on
        the way); every root when the kernel lost events. Never blocks."""
        changed: set[Path] = set()
        while True:
            try:
                buffer = os.read(self.fd, READ_SIZE)
            except BlockingIOError:
                return changed
            for event in parse(buffer):
                changed |= self._apply(event)

    def _apply(self, event: Event) -> set[Path]:
        if event.mask & IN_Q_OVERFLOW:
            return set(self.roots)
        folder = self._folders.get(event.watch)
        if folder is None:
            return set()
        if event.mask & IN_IGNORED:
            del self._folders[event.watch]
            self._deep.discard(event.watch)
            return {folder}
        path = folder / event.name if event.name else folder
        if event.mask & IN_ISDIR and event.watch in self._deep:
            if event.mask & ARRIVED:
                with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                    self._deep.add(self._add(path, follow=False))
                    self._follow_below(path)
            elif event.mask & IN_MOVED_FROM:
                self._forget(path)
        return {path}

    def _follow_below(self, root: Path) -> None:
        stack = [root]
        while stack:
            try:
                with os.scandir(stack.pop()) as entries:
                    below = [Path(e.path) for e in entries if e.is_dir(follow_symlinks=False)]
            except (FileNotFoundError, NotADirectoryError):
                continue  # gone meanwhile: its parent's events say so
            for folder in below:
                with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                    self._deep.add(self._add(folder, follow=False))
                    stack.append(folder)

    def _add(self, folder: Path, *, follow: bool) -> int:
        if len(self._folders) >= MOST_FOLDERS:
            raise TooManyFolders(f"more than {MOST_FOLDERS} folders to watch (the last: {folder})")
        mask = CHANGES | IN_ONLYDIR | (0 if follow else IN_DONT_FOLLOW)
        watch: int = self._libc.inotify_add_watch(self.fd, os.fsencode(folder), mask)
        if watch < 0:
            raise self._error("inotify_add_watch", folder)
        self._folders[watch] = folder
        return watch

    def _forget(self, moved: Path) -> None:
        """Stop following a folder moved away, and those below it (the kernel would go on
        reporting them under the old name)."""
        for watch, folder in list(self._folders.items()):
            if folder == moved or moved in folder.parents:
                self._libc.inotify_rm_watch(self.fd, watch)  # its IN_IGNORED forgets it

    def _error(self, call: str, path: Path | None) -> OSError:
        number = ctypes.get_errno()
        if call == "inotify_add_watch" and number == errno.ENOSPC:
            return OSError(
                number,
                "the user's inotify watches are used up (raise fs.inotify.max_user_watches)",
                str(path),
            )
        if call == "inotify_init1" and number == errno.EMFILE:
            return OSError(
                number, "the user's inotify instances are used up (fs.inotify.max_user_instances)"
            )
        return OSError(
            number, f"{call}: {os.strerror(number)}", None if path is None else str(path)
        )


async def changes(
    folders: frozenset[Path], deep: bool, relevant: Callable[[Path], bool], stop: Stop
) -> AsyncIterator[set[Path]]:
    """Each batch of relevant changed paths under ``folders``, until cancelled (nothing here
    waits in a thread, so ``stop`` is not needed).

    Once a change wakes it, it reads every ``STEP_MS``, never in between: what the writes of a
    turn cause beside a followed file (Heron's own session database in its home) wakes the
    event loop at most that often, not at every write."""
    del stop
    with Inotify() as notify:
        notify.follow(folders, deep=deep)
        while True:
            await anyio.wait_readable(notify.fd)
            batch: set[Path] = set()
            ends = time.monotonic() + DEBOUNCE_MS / 1000
            while True:
                await anyio.sleep(STEP_MS / 1000)  # what comes meanwhile is read at once
                fresh = {path for path in notify.read() if relevant(path)}
                batch |= fresh
                if not batch:
                    break  # nothing relevant: wait for the next change
                if not fresh or time.monotonic() >= ends:  # quiet for a step, or long enough
                    yield batch
                    break


async def check(folders: frozenset[Path], *, deep: bool) -> None:
    """Lay the watch and take it down (``heron doctor``); raises ``OSError`` with why not."""
    with Inotify() as notify:
        notify.follow(folders, deep=deep)
    await anyio.lowlevel.checkpoint()
