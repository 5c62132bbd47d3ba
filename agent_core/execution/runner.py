"""``ContainerRunner``: the ``CommandRunner`` port over the command server of a workspace's
container, and ``ContainerLauncher``, which stands in for the OS sandbox there.

The seam for the tools. ``terminal`` builds ``shell = ["/bin/sh", "-c", command]``, asks
``context.sandbox.launch(shell, ...)`` for the command line and gives ``launch.argv`` to
``context.runner``. With the container backend the container is the sandbox: the launcher
returns ``shell`` as it is (confined, nothing to release, never a sandbox refusal to offer to
run outside) and the runner runs that argv inside the container, in the same folder (the roots
are mounted at the same paths). So the wiring selects the backend by giving the session a
(launcher, runner) pair, the local one being (``Confinement``, ``LocalRunner``), and no tool
changes. ``ExecutionBackend`` names that pair.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

import anyio

from agent_core.errors import ToolError
from agent_core.execution.container import SCRIPTS_DIR, Container
from agent_core.execution.engine import EngineError, Progress
from agent_core.execution.server import OUTPUT_POLL_S, CommandServer, Job
from agent_core.ports.runner import KILL_GRACE_S, CommandResult, CommandRunner, Started
from agent_core.safety.sandbox.confinement import Launch, Launcher

LOOKUP_TIMEOUT_S = 30.0


class ExecutionBackend(Protocol):
    """Where a session's commands run: how they are launched, and what runs them."""

    @property
    def sandbox(self) -> Launcher: ...
    @property
    def runner(self) -> CommandRunner: ...


class ContainerLauncher:
    """The container is the sandbox: command lines go in as they are.

    Plan mode: the OS sandbox runs a read-only command with the workspace read-only
    (``writable=False``); the container has one mount of the workspace, writable, so there plan
    mode relies on the judge alone (only commands it reads as read-only run without a question).
    """

    def notice(self) -> str | None:
        return None

    def launch(
        self,
        argv: Sequence[str],
        *,
        writable: bool = True,
        extra: Sequence[Path] = (),
        needs: Sequence[Path] = (),
        tether: bool = True,
    ) -> Launch:
        return Launch(list(argv), confined=True)

    def unconfined(self, argv: Sequence[str], *, tether: bool = True) -> Launch:
        return Launch(list(argv), confined=True)  # never offered: refusal() is always None

    def release(self, launch: Launch) -> None:
        return None

    def refusal(self, output: str) -> str | None:
        return None


class ContainerRunner:
    """Commands run in a workspace's container through one command server, started (with the
    container) on the first command."""

    def __init__(
        self,
        container: Container,
        environment: Mapping[str, str] | None = None,
        *,
        progress: Progress | None = None,
        grace: float = KILL_GRACE_S,
    ) -> None:
        self._container = container
        self._environment = dict(environment or {})  # only what was chosen: no host secrets
        self._progress = progress
        self._grace = grace
        self._server: CommandServer | None = None
        self._opening = anyio.Lock()
        self._background: dict[str, Job] = {}
        self._ids = itertools.count(1)

    @property
    def container(self) -> Container:
        return self._container

    async def server(self) -> CommandServer:
        async with self._opening:
            if self._server is not None and not self._server.alive:  # its exec client died
                await self._server.close()
                self._server = None
            if self._server is None:
                await self._container.ensure(self._progress)
                server = CommandServer(
                    self._container.engine,
                    self._container.name,
                    self._container.run_dir,
                    grace=self._grace,
                )
                await server.open()
                self._server = server
            return self._server

    async def run(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        time_limit: float,
        output_limit: int,
        started: Started,
    ) -> CommandResult:
        server, job = await self._start(argv, cwd, output_limit)
        try:
            await started(None)
            timed_out = False
            with anyio.move_on_after(time_limit) as waited:
                while not job.done.is_set():
                    with anyio.move_on_after(OUTPUT_POLL_S):
                        await server.wait(job)
                    job.read()
            if waited.cancelled_caught:
                timed_out = True
                await server.kill(job)
            return job.result(timed_out=timed_out)
        finally:
            with anyio.CancelScope(shield=True):
                if not job.done.is_set():  # cancelled: the command dies with the turn
                    await server.kill(job)
                server.forget(job)

    async def programs(self, names: Sequence[str], cwd: Path) -> dict[str, str]:
        """Where each of ``names`` is inside the container (``command -v``, through the
        command server: a few milliseconds once it runs), the container started if need be;
        names not found are left out."""

        async def started(_terminal: str | None) -> None:
            return None

        words = [name for name in names if name and not name.startswith("-") and "/" not in name]
        look = 'for n; do p=$(command -v "$n") && echo "$n $p"; done; exit 0'
        done = await self.run(
            ["/bin/sh", "-c", look, "sh", *words],
            cwd=cwd,
            time_limit=LOOKUP_TIMEOUT_S,
            output_limit=64 * 1024,
            started=started,
        )
        found: dict[str, str] = {}
        for line in done.output.splitlines():
            name, _, path = line.partition(" ")
            if name in words and path.startswith("/"):  # not a builtin, alias or function
                found[name] = path
        return found

    async def scripts(self) -> tuple[Path, str]:
        """execute_code's place for run folders, on the host and inside, the container up."""
        await self.server()
        return self._container.spec.scripts, SCRIPTS_DIR

    async def start(
        self, argv: Sequence[str], *, cwd: Path, output_limit: int, interactive: bool = False
    ) -> str:
        if interactive:  # the command server runs commands on pipes; no terminal to hand out
            raise ToolError(
                "Interactive programs are not offered in the container: run the command with "
                "its flags for answers (--yes, -m ...) or with the answers piped in."
            )
        _server, job = await self._start(argv, cwd, output_limit)
        process_id = f"bg-{next(self._ids)}"
        self._background[process_id] = job
        return process_id

    async def output(self, process_id: str) -> CommandResult:
        job = self._get(process_id)
        if self._server is not None:
            self._server.poll(job)
        job.read()
        return job.result()

    async def send(self, process_id: str, data: bytes) -> CommandResult:
        self._get(process_id)  # unknown: says which ones run
        raise ToolError(f"{process_id} was not started with interactive=true: it takes no input.")

    async def kill(self, process_id: str) -> CommandResult:
        job = self._get(process_id)
        if self._server is not None:
            with anyio.CancelScope(shield=True):
                await self._server.kill(job)
        job.read()
        return job.result()

    async def close(self) -> None:
        """Kill every command still running and stop the server (the container stays for the
        other clients of the workspace; ``Container.close`` removes it)."""
        server, self._server = self._server, None
        if server is not None:
            with anyio.CancelScope(shield=True):
                for job in self._background.values():
                    await server.kill(job)
                await server.close()
        self._background.clear()

    async def _start(self, argv: Sequence[str], cwd: Path, limit: int) -> tuple[CommandServer, Job]:
        """The command started; once more with a new server when the old one turns out gone
        (it did not run: the server never got the line)."""
        for attempt in (1, 2):
            server = await self.server()
            try:
                return server, await server.start(
                    argv, cwd=cwd, environment=self._environment, limit=limit
                )
            except EngineError:
                if server.alive or attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _get(self, process_id: str) -> Job:
        job = self._background.get(process_id)
        if job is None:
            known = ", ".join(self._background) or "none"
            raise ToolError(f"No background process {process_id!r}; running: {known}.")
        return job
