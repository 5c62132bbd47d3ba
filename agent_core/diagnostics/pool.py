"""The language servers of one Heron process, and a session's view of them.

A server runs once per workspace root and server, shared by every session of that workspace,
and stops with the last of them. It starts on the first edit of a file it covers, as the
session's launcher says (in the sandbox: ``diagnostics.launching``); a server that cannot or may
not start is not tried again for ``RETRY_AFTER_S``, so a missing, refused or broken one costs
one wait and one notice, not one per edit. pygls is imported with the first server.

No wait here is open-ended: a question to a server (its start included, and the wait for another
session starting it) has the session's time limit, and a cancelled turn leaves at once (a server
cancelled while it starts is killed: ``lsp.LanguageServer.start``).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
from msgspec import Struct, field

from agent_core.diagnostics.model import Diagnostic, Findings
from agent_core.diagnostics.servers import (
    DEFAULTS,
    LanguageServerSpec,
    Which,
    available,
    server_for,
)
from agent_core.safety.safe_open import UnsafeFile, read_safely, why_unreadable

if TYPE_CHECKING:
    from agent_core.diagnostics.launching import ServerLaunch
    from agent_core.diagnostics.lsp import LanguageServer

RETRY_AFTER_S = 300.0
ALL_DEFAULTS = tuple(spec for candidates in DEFAULTS for spec in candidates)
MAX_CHECKED_BYTES = 16 * 1024 * 1024  # a file read from disk for its diagnostics
LOCK_GRACE_S = 1.5  # past a start's own limit: its failure (killed, recorded) comes first
# A server as it is run (blocking, called in a worker thread); raises launching.Refused.
Launcher = Callable[[LanguageServerSpec], "ServerLaunch"]
Notify = Callable[[str, str], Awaitable[None]]  # (title, description): told once per server


class Unavailable(Exception):
    """No diagnostics from this server now; the message says why."""


class _Entry(Struct):
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    server: LanguageServer | None = None
    failed: tuple[float, str] | None = None  # when, and why
    users: set[str] = field(default_factory=set[str])


class ServerPool:
    def __init__(self) -> None:
        self._entries: dict[tuple[Path, str], _Entry] = {}

    async def server(
        self, root: Path, spec: LanguageServerSpec, launch: Launcher, user: str, limit: float
    ) -> tuple[LanguageServer, bool]:
        """The running server for ``root``, started (within ``limit``) if need be, and whether
        it was started now; raises ``Unavailable``."""
        from agent_core.diagnostics.launching import Refused
        from agent_core.diagnostics.lsp import LanguageServer, ServerFailed

        entry = self._entries.setdefault((root, spec.name), _Entry())
        entry.users.add(user)
        async with entry.lock:
            if entry.server is not None and entry.server.running:
                return entry.server, False
            if entry.failed is not None and time.monotonic() - entry.failed[0] < RETRY_AFTER_S:
                raise Unavailable(entry.failed[1])
            if entry.server is not None:  # ended on its own: tidy up after it
                await entry.server.stop()
                entry.server = None
            try:
                launched = await anyio.to_thread.run_sync(launch, spec)
            except Refused as exc:
                entry.failed = (time.monotonic(), str(exc))
                raise Unavailable(str(exc)) from exc
            server = LanguageServer(spec.name, launched.argv, root, launched.done)
            try:
                await server.start(limit)
            except ServerFailed as exc:
                entry.failed = (time.monotonic(), f"{exc}{launched.remedy}")
                raise Unavailable(entry.failed[1]) from exc
            entry.server, entry.failed = server, None
            return server, True

    async def release(self, user: str) -> None:
        """``user`` (a session) has closed: stop the servers no other session uses."""
        for key, entry in list(self._entries.items()):
            entry.users.discard(user)
            if not entry.users:
                del self._entries[key]
                if entry.server is not None:
                    await entry.server.stop()

    async def close(self) -> None:
        for entry in self._entries.values():
            if entry.server is not None:
                await entry.server.stop()
        self._entries.clear()

    def running(self) -> int:
        return sum(1 for e in self._entries.values() if e.server is not None and e.server.running)


class LanguageServerDiagnostics:
    """One session's ``Diagnostician`` over the process's language servers."""

    def __init__(
        self,
        pool: ServerPool,
        session_id: str,
        root: Path,
        configured: Sequence[LanguageServerSpec],
        launch: Launcher,
        waits: tuple[float, float],  # (a running server, one that starts first)
        notify: Notify,
        which: Which,  # where servers' programs are found (``servers.finder``)
        find: Callable[[], Awaitable[Which]] | None = None,  # instead, found on the first edit
    ) -> None:
        self._pool, self._session, self._root = pool, session_id, root
        self._configured, self._launch, self._waits = tuple(configured), launch, waits
        self._which, self._find = which, find
        self._servers: tuple[LanguageServerSpec, ...] | None = None  # found on the first edit
        self._notify = notify
        self._told: set[str] = set()
        self._latest: dict[Path, Findings] = {}

    async def findings(self, path: Path, text: str | None) -> Findings:
        if self._servers is None:
            if self._find is not None:  # a look-up that costs (in a container: its start)
                if server_for(path, [*self._configured, *ALL_DEFAULTS]) is None:
                    return Findings()
                self._which = await self._find()
            self._servers = available(self._configured, self._which)
        spec = server_for(path, self._servers)
        if spec is None:  # nothing to say about this kind of file
            return Findings()
        try:  # a file that cannot be read is this file's problem, not the server's
            known = text if text is not None else await self._read(path)
        except (UnsafeFile, OSError) as exc:
            return Findings(source=spec.name, unavailable=f"{path.name}: {why_unreadable(exc)}")
        try:
            found = await self._ask(spec, path, known)
        except (Unavailable, OSError) as exc:
            if spec.name not in self._told:
                self._told.add(spec.name)
                await self._notify(f"No diagnostics from {spec.name}", str(exc))
            return Findings(source=spec.name, unavailable=str(exc))
        self._latest[path] = Findings(found, spec.name)
        return self._latest[path]

    async def _read(self, path: Path) -> str:
        """The file as it is on disk, read as Heron reads what the workspace supplies: never a
        FIFO, never through a link out of the workspace (its text would go to the server)."""
        read = await read_safely(path, [self._root], MAX_CHECKED_BYTES)
        if read.truncated:
            raise UnsafeFile(f"it is over {MAX_CHECKED_BYTES:,} bytes")
        return read.text()

    async def workspace(self) -> dict[Path, Findings]:
        """The latest diagnostics of each file this session had checked."""
        return dict(self._latest)

    async def close(self) -> None:
        await self._pool.release(self._session)

    async def _ask(self, spec: LanguageServerSpec, path: Path, text: str) -> tuple[Diagnostic, ...]:
        from agent_core.diagnostics.lsp import ServerFailed

        wait, first_wait = self._waits
        started = time.monotonic()
        try:  # the lock too: another session may be starting this server
            with anyio.fail_after(first_wait + LOCK_GRACE_S):
                server, fresh = await self._pool.server(
                    self._root, spec, self._launch, self._session, first_wait
                )
        except TimeoutError as exc:
            raise Unavailable(f"{spec.name} did not start within {first_wait:g} s") from exc
        left = max(first_wait - (time.monotonic() - started), wait) if fresh else wait
        try:
            return await server.diagnostics(path, text, left)
        except ServerFailed as exc:
            raise Unavailable(str(exc)) from exc
