"""The ``CommandRunner`` port, where commands run, and ``LocalRunner``: commands as subprocesses
in their own process group (the other runner is the editor's terminal, ``EditorTerminal``).

A runner runs a command line it is given whole (``argv``: the sandbox launcher, the shell and
the command, as ``safety.sandbox`` built it). A foreground ``run`` waits up to a timeout;
``start``/``output``/``kill`` manage background processes; an interactive one
(``start(..., interactive=True)``) runs in a pseudo-terminal of its own and takes input through
``send`` (``ports.interactive.WithTerminals`` wraps a runner to offer them). Whatever happens
(timeout, cancel, session end), the whole process group is killed (``ports.groups``):
SIGTERM, a grace period, then SIGKILL. Output is capped, keeping the end (the part that usually
says what went wrong).
"""

from __future__ import annotations

import itertools
import os
import subprocess
import tempfile
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, Protocol

import anyio
import anyio.abc
from msgspec import Struct

from agent_core.errors import ToolError
from agent_core.ports.groups import exited, signal_group, terminate_group
from agent_core.ports.results import CommandResult, command_result

KILL_GRACE_S = 2.0
NO_TERMINALS = "Interactive programs are not offered here."
Started = Callable[[str | None], Awaitable[None]]  # told the editor terminal id, if any


class CommandRunner(Protocol):
    async def run(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        time_limit: float,
        output_limit: int,
        started: Started,
    ) -> CommandResult: ...
    async def start(
        self, argv: Sequence[str], *, cwd: Path, output_limit: int, interactive: bool = False
    ) -> str:
        """A background process's id. ``interactive``: in a pseudo-terminal, for ``send`` (a
        runner that cannot offer one raises ``ToolError``)."""
        ...

    async def output(self, process_id: str) -> CommandResult:
        """What it printed so far (an interactive one: once it settled, see ``send``)."""
        ...

    async def send(self, process_id: str, data: bytes) -> CommandResult:
        """``data`` typed into an interactive process; what it printed once it settled (it
        waits for input, ends, or a few seconds pass)."""
        ...

    async def kill(self, process_id: str) -> CommandResult: ...
    async def close(self) -> None:
        """Kill every process still running (the session is ending)."""
        ...


def takes_no_input(process_id: str) -> str:
    return f"{process_id} was not started with interactive=true: it takes no input."


class _Capture:
    """A process and the tail of its combined output."""

    def __init__(self, process: anyio.abc.Process, limit: int) -> None:
        self.process = process
        self._limit = limit
        self._buffer = bytearray()
        self._dropped = False
        self.done = anyio.Event()

    async def pump(self) -> None:
        assert self.process.stdout is not None
        try:
            async for chunk in self.process.stdout:
                self._buffer += chunk
                if len(self._buffer) > self._limit:
                    del self._buffer[: len(self._buffer) - self._limit]
                    self._dropped = True
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        await self.process.wait()
        self.done.set()

    def result(self, *, timed_out: bool = False) -> CommandResult:
        text = self._buffer.decode("utf-8", errors="replace")
        return command_result(self.process.returncode, text, self._dropped, timed_out)

    async def terminate(self) -> None:
        await _terminate(self.process)


class LocalRunner:
    def __init__(self, environment: Mapping[str, str]) -> None:
        self._environment = dict(environment)
        self._background: dict[str, _Background] = {}
        self._ids = itertools.count(1)

    async def run(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        time_limit: float,
        output_limit: int,
        started: Started,
    ) -> CommandResult:
        capture = _Capture(await self._spawn(argv, cwd, subprocess.PIPE), output_limit)
        await started(None)
        waited = anyio.CancelScope(deadline=anyio.current_time() + time_limit)
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(capture.pump)
                with waited:
                    await capture.done.wait()
                if waited.cancelled_caught:
                    await capture.terminate()
            return capture.result(timed_out=waited.cancelled_caught)
        finally:
            with anyio.CancelScope(shield=True):
                await capture.terminate()

    async def start(
        self, argv: Sequence[str], *, cwd: Path, output_limit: int, interactive: bool = False
    ) -> str:
        if interactive:
            raise ToolError(NO_TERMINALS)
        process_id = f"bg-{next(self._ids)}"
        log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close(); no pump needed
        process = await self._spawn(argv, cwd, log)
        self._background[process_id] = _Background(process, log, output_limit)
        return process_id

    async def output(self, process_id: str) -> CommandResult:
        return self._get(process_id).result()

    async def send(self, process_id: str, data: bytes) -> CommandResult:
        self._get(process_id)  # unknown: says which ones run
        raise ToolError(takes_no_input(process_id))

    async def kill(self, process_id: str) -> CommandResult:
        background = self._get(process_id)
        with anyio.CancelScope(shield=True):
            await _terminate(background.process)
        return background.result()

    async def close(self) -> None:
        with anyio.CancelScope(shield=True):
            for background in self._background.values():
                await _terminate(background.process)
                background.log.close()
        self._background.clear()

    async def _spawn(
        self, argv: Sequence[str], cwd: Path, stdout: int | IO[bytes]
    ) -> anyio.abc.Process:
        return await anyio.open_process(
            list(argv),
            cwd=cwd,
            env=self._environment,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=subprocess.STDOUT,  # one stream, in order
            start_new_session=True,  # its own process group, killed as a whole
        )

    def _get(self, process_id: str) -> _Background:
        background = self._background.get(process_id)
        if background is None:
            known = ", ".join(self._background) or "none"
            raise ToolError(f"No background process {process_id!r}; running: {known}.")
        return background


class _Background(Struct):
    process: anyio.abc.Process
    log: IO[bytes]
    limit: int

    def result(self) -> CommandResult:
        self.log.seek(0, os.SEEK_END)
        size = self.log.tell()
        self.log.seek(max(size - self.limit, 0))
        text = self.log.read().decode("utf-8", errors="replace")
        return command_result(self.process.returncode, text, size > self.limit)


async def _terminate(process: anyio.abc.Process) -> None:
    await terminate_group(process, KILL_GRACE_S)


__all__ = [
    "CommandResult",
    "command_result",
    "exited",
    "signal_group",
    "terminate_group",
]
