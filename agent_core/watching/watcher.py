"""One watcher per root (a workspace, or Heron's home), shared by the sessions that use it.

Built on ``watchfiles.awatch`` (the Rust ``notify`` crate: inotify here, FSEvents on macOS),
imported when the first watcher starts, never on the start-up path. Two watches per root: the
single files' folders alone, the commands and skill folders with what is below them. Changes
are grouped by awatch's own debounce (``STEP_MS`` of quiet, ``DEBOUNCE_MS`` at most), then
each subscriber is told what kinds of thing changed. A change that lays the watch points
differently (a ``.heron/commands`` folder created) lays the watch again.

A watcher that cannot start or stops (no inotify, too many watches, a folder that cannot be
watched) says why once, through ``on_failure``; the sessions then rely on the per-prompt checks
they always make.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.abc
import anyio.lowlevel

from agent_core.watching.probe import on_network
from agent_core.watching.targets import Kind, Targets, WatchPoints, watch_points, what_changed

if TYPE_CHECKING:
    from watchfiles import Change

log = logging.getLogger("heron.watching")

DEBOUNCE_MS = 400  # a burst of changes (a git checkout) is told at most this late, as one
STEP_MS = 50  # quiet this long ends a burst
RUST_TIMEOUT_MS = 1000  # how long a cancel without ``stop`` may wait for the watching thread
Subscriber = Callable[[frozenset[Kind]], Awaitable[None]]
Failure = Callable[[str], None]


class FolderWatch:
    """The watcher of one root: ``targets`` says what it follows now (read again each time the
    watch is laid, so a settings change that moves a skill folder is followed)."""

    def __init__(self, name: str, targets: Callable[[], Targets], on_failure: Failure) -> None:
        self.name = name
        self._targets = targets
        self._on_failure = on_failure
        self._subscribers: dict[str, Subscriber] = {}
        self._stopping = anyio.Event()  # awatch's own stop: its thread returns at once
        self.started = anyio.Event()  # set once the watch is laid, or has failed
        self.failed: str | None = None

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    def subscribe(self, key: str, subscriber: Subscriber) -> None:
        self._subscribers[key] = subscriber

    def unsubscribe(self, key: str) -> None:
        self._subscribers.pop(key, None)

    def start(self, group: anyio.abc.TaskGroup) -> None:
        group.start_soon(self._run)

    def stop(self) -> None:
        """Stopped soon (a cancel alone would wait for awatch's thread to time out)."""
        self._stopping.set()

    async def _run(self) -> None:
        try:
            moved: frozenset[Kind] = frozenset()
            while not self._stopping.is_set():
                targets = self._targets()
                points = watch_points(targets)
                if (remote := on_network(points.flat | points.deep)) is not None:
                    self._fail(remote)
                    return
                moved = await self._watch(targets, points, moved)
        except Exception as exc:  # noqa: BLE001 - the background boundary: said once, never raised
            self._fail(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)

    async def _watch(
        self, targets: Targets, points: WatchPoints, moved: frozenset[Kind]
    ) -> frozenset[Kind]:
        """Until the watch points move: each batch of relevant changes told; then what the
        batch that moved them touched. ``moved``: told again once this watch is laid, for
        what was written in a new folder before it was watched."""
        send, receive = anyio.create_memory_object_stream[set[Path]](16)
        relay = anyio.Event()  # the points moved: this watch ends, another is laid
        stop = _Either(self._stopping, relay)
        async with anyio.create_task_group() as group, receive:
            for folders, deep in ((points.flat, False), (points.deep, True)):
                if folders:
                    group.start_soon(_changes, folders, deep, targets, stop, send.clone())
            send.close()
            await anyio.lowlevel.checkpoint()  # each awatch lays its watch before it waits
            self.started.set()
            if moved:
                await self._tell(moved)
            async for paths in receive:
                if kinds := what_changed(targets, paths):
                    await self._tell(kinds)
                if watch_points(targets) != points and not relay.is_set():
                    relay.set()
                    moved = kinds
        return moved if relay.is_set() else frozenset()

    async def _tell(self, kinds: frozenset[Kind]) -> None:
        for subscriber in list(self._subscribers.values()):
            try:
                await subscriber(kinds)
            except Exception:  # one session's failure is no other's
                log.exception("%s: a change could not be told", self.name)

    def _fail(self, reason: str) -> None:
        self.failed = reason
        self.started.set()
        self._on_failure(reason)


class _Either:
    """Set when either event is (what awatch's Rust side polls: ``is_set``)."""

    def __init__(self, first: anyio.Event, second: anyio.Event) -> None:
        self._events = (first, second)

    def is_set(self) -> bool:
        return any(event.is_set() for event in self._events)

    def set(self) -> None:
        """What awatch calls when cancelled: this watch ends."""
        self._events[1].set()


async def _changes(
    folders: frozenset[Path],
    deep: bool,
    targets: Targets,
    stop: _Either,
    send: anyio.abc.ObjectSendStream[set[Path]],
) -> None:
    from watchfiles import awatch  # pyright: ignore[reportUnknownVariableType]

    def relevant(change: Change, path: str) -> bool:
        del change
        return bool(what_changed(targets, (Path(path),)))

    async with send:
        async for batch in awatch(
            *sorted(folders),
            watch_filter=relevant,
            debounce=DEBOUNCE_MS,
            step=STEP_MS,
            stop_event=stop,  # pyright: ignore[reportArgumentType] - polled by is_set only
            rust_timeout=RUST_TIMEOUT_MS,
            recursive=deep,
            ignore_permission_denied=False,
        ):
            await send.send({Path(path) for _, path in batch})


async def probe(points: WatchPoints) -> str | None:
    """Whether the watch can be laid on these folders now (``heron doctor``): None, or why not.
    The watch is laid and taken down at once."""
    from watchfiles import awatch  # pyright: ignore[reportUnknownVariableType]

    if (remote := on_network(points.flat | points.deep)) is not None:
        return remote
    stopped = anyio.Event()
    stopped.set()
    try:
        for folders, deep in ((points.flat, False), (points.deep, True)):
            if folders:
                async for _ in awatch(*sorted(folders), recursive=deep, stop_event=stopped):
                    break
    except Exception as exc:  # noqa: BLE001 - whatever stops it is what doctor reports
        return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return None
