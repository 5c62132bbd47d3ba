"""The watcher's changes where there is no inotify (macOS, through FSEvents): ``watchfiles``
(the Rust ``notify`` crate), imported with this module when the first watch starts. Its watch
waits for changes in a worker thread, which returns between waits only when ``stop`` is set: a
cancel alone would wait for it to time out (``RUST_TIMEOUT_MS``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import anyio
from watchfiles import Change, awatch  # pyright: ignore[reportUnknownVariableType]

from agent_core.watching.sources import DEBOUNCE_MS, STEP_MS, Stop

RUST_TIMEOUT_MS = 1000  # how long a cancel without ``stop`` may wait for the watching thread


async def changes(
    folders: frozenset[Path], deep: bool, relevant: Callable[[Path], bool], stop: Stop
) -> AsyncIterator[set[Path]]:
    """Each batch of relevant changed paths under ``folders``, until ``stop`` is set."""

    def wanted(change: Change, path: str) -> bool:
        del change
        return relevant(Path(path))

    async for batch in awatch(
        *sorted(folders),
        watch_filter=wanted,
        debounce=DEBOUNCE_MS,
        step=STEP_MS,
        stop_event=stop,  # pyright: ignore[reportArgumentType] - polled by is_set only
        rust_timeout=RUST_TIMEOUT_MS,
        recursive=deep,
        ignore_permission_denied=False,
    ):
        yield {Path(path) for _, path in batch}


async def check(folders: frozenset[Path], *, deep: bool) -> None:
    """Lay the watch and take it down (``heron doctor``); raises with why not."""
    stopped = anyio.Event()
    stopped.set()
    async for _ in awatch(*sorted(folders), recursive=deep, stop_event=stopped):
        break
