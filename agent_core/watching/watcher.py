"""One watcher per root (a workspace, or Heron's home), shared by the sessions that use it.

The changes come from inotify on Linux, read on the event loop (``inotify.py``), and from
``watchfiles`` elsewhere (``portable.py``: FSEvents on macOS); either is imported when the first
watcher starts, never on the start-up path. Two watches per root: the single files' folders
alone, the commands and skill folders with what is below them. Changes come in batches
(``sources.py``: ``STEP_MS`` of quiet, ``DEBOUNCE_MS`` at most), then each subscriber is told
what kinds of thing changed. A change that lays the watch points differently (a
``.heron/commands`` folder created) lays the watch again.

A watcher that cannot start or stops (no inotify, too many watches, a folder that cannot be
watched) says why once, through ``on_failure``; the sessions then rely on the per-prompt checks
they always make.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import anyio
import anyio.abc
import anyio.lowlevel

from agent_core.errors import innermost
from agent_core.watching.probe import on_network
from agent_core.watching.sources import Source
from agent_core.watching.targets import Kind, Targets, WatchPoints, watch_points, what_changed

log = logging.getLogger("heron.watching")

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
        self._stopping = anyio.Event()
        self._watching: anyio.CancelScope | None = None  # the watch laid now
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
        """Stopped at once (the stop set first: a source waiting in a thread returns as soon
        as it sees it, where a cancel alone would wait for the thread to time out)."""
        self._stopping.set()
        if self._watching is not None:
            self._watching.cancel()

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
            self._fail(_reason(exc))

    async def _watch(
        self, targets: Targets, points: WatchPoints, moved: frozenset[Kind]
    ) -> frozenset[Kind]:
        """Until the watch points move: each batch of relevant changes told; then what the
        batch that moved them touched. ``moved``: told again once this watch is laid, for
        what was written in a new folder before it was watched."""
        send, receive = anyio.create_memory_object_stream[set[Path]](16)
        relay = anyio.Event()  # the points moved: this watch ends, another is laid
        stop = _Either(self._stopping, relay)
        changes_in = source().changes
        async with anyio.create_task_group() as group, receive:
            self._watching = group.cancel_scope
            for folders, deep in ((points.flat, False), (points.deep, True)):
                if folders:
                    changes = changes_in(folders, deep, _relevant(targets), stop)
                    group.start_soon(_relayed, changes, send.clone())
            send.close()
            await anyio.lowlevel.checkpoint()  # each source lays its watch before it waits
            self.started.set()
            if moved:
                await self._tell(moved)
            async for paths in receive:
                if kinds := what_changed(targets, paths):
                    await self._tell(kinds)
                if watch_points(targets) != points:
                    relay.set()  # first: a source waiting in a thread returns at once
                    group.cancel_scope.cancel()
                    return kinds
        return frozenset()

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
    """Set when either event is: the watcher stopped, or its points moved."""

    def __init__(self, first: anyio.Event, second: anyio.Event) -> None:
        self._events = (first, second)

    def is_set(self) -> bool:
        return any(event.is_set() for event in self._events)

    def set(self) -> None:
        """What a source calls when cancelled: this watch ends."""
        self._events[1].set()


def _relevant(targets: Targets) -> Callable[[Path], bool]:
    return lambda path: bool(what_changed(targets, (path,)))


async def _relayed(
    changes: AsyncIterator[set[Path]], send: anyio.abc.ObjectSendStream[set[Path]]
) -> None:
    async with send:
        async for paths in changes:
            await send.send(paths)


def source() -> Source:
    """Where changes come from here, imported on first use: inotify on Linux, watchfiles
    elsewhere."""
    if sys.platform.startswith("linux"):
        from agent_core.watching import inotify

        return Source(inotify.changes, inotify.check)
    from agent_core.watching import portable

    return Source(portable.changes, portable.check)


async def probe(points: WatchPoints) -> str | None:
    """Whether the watch can be laid on these folders now (``heron doctor``): None, or why not.
    The watch is laid and taken down at once."""
    if (remote := on_network(points.flat | points.deep)) is not None:
        return remote
    check = source().check
    try:
        for folders, deep in ((points.flat, False), (points.deep, True)):
            if folders:
                await check(folders, deep=deep)
    except Exception as exc:  # noqa: BLE001 - whatever stops it is what doctor reports
        return _reason(exc)
    return None


def _reason(exc: BaseException) -> str:
    """What stopped a watch, said plainly (the error itself, not the task group around it)."""
    exc = innermost(exc)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
