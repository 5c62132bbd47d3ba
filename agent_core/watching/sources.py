"""What the watcher asks of a source of changes (``inotify.py`` on Linux, ``portable.py``
elsewhere): batches of changed paths, grouped alike, and a watch laid and taken down for
``heron doctor``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import NamedTuple, Protocol

DEBOUNCE_MS = 400  # a burst of changes (a git checkout) is told at most this late, as one
STEP_MS = 50  # quiet this long ends a burst


class Stop(Protocol):
    """Set when the watch should end (``is_set`` is what a source waiting in a thread polls;
    ``set`` is what it calls when cancelled)."""

    def is_set(self) -> bool: ...

    def set(self) -> None: ...


class Changes(Protocol):
    def __call__(
        self, folders: frozenset[Path], deep: bool, relevant: Callable[[Path], bool], stop: Stop
    ) -> AsyncIterator[set[Path]]:
        """Each batch of changed paths ``relevant`` keeps, under ``folders`` (alone, or with
        every folder below them: ``deep``), until cancelled or ``stop`` is set."""
        ...


class Check(Protocol):
    async def __call__(self, folders: frozenset[Path], *, deep: bool) -> None:
        """Lay the watch and take it down; raises with why it cannot be laid."""
        ...


class Source(NamedTuple):
    """A source of changes: ``inotify.py``'s or ``portable.py``'s."""

    changes: Changes
    check: Check
