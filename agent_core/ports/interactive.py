"""``WithTerminals``: a runner that also runs interactive programs.

``start(..., interactive=True)`` gets a pseudo-terminal of its own here (``pty_process``),
under the same sandbox launcher the command line was built with, and takes input through
``send``; every other call goes to the runner it wraps: this machine's processes
(``LocalRunner``), or the editor's terminals (``EditorTerminal``), which take no input. The
container runner is not wrapped: its command server has no terminal to hand out, so it
refuses an interactive start itself. Interactive programs are named ``tty-<n>``, the wrapped
runner's background processes ``bg-<n>``; both are released with the session.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from agent_core.ports.results import CommandResult
from agent_core.ports.runner import CommandRunner, Started

if TYPE_CHECKING:
    from agent_core.ports.pty_process import PtyProcess


class WithTerminals:
    def __init__(self, inner: CommandRunner, environment: Mapping[str, str]) -> None:
        """``environment``: what an interactive program sees (the commands' environment)."""
        self._inner = inner
        self._environment = dict(environment)
        self._programs: dict[str, PtyProcess] = {}  # a killed one stays: its output is read
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
        return await self._inner.run(
            argv, cwd=cwd, time_limit=time_limit, output_limit=output_limit, started=started
        )

    async def start(
        self, argv: Sequence[str], *, cwd: Path, output_limit: int, interactive: bool = False
    ) -> str:
        if not interactive:
            return await self._inner.start(argv, cwd=cwd, output_limit=output_limit)
        from agent_core.ports.pty_process import PtyProcess

        process_id = f"tty-{next(self._ids)}"
        self._programs[process_id] = await PtyProcess.spawn(
            argv, cwd=cwd, environment=self._environment, limit=output_limit
        )
        return process_id

    async def output(self, process_id: str) -> CommandResult:
        if (program := self._programs.get(process_id)) is None:
            return await self._inner.output(process_id)
        await program.settle()
        return program.result()

    async def send(self, process_id: str, data: bytes) -> CommandResult:
        if (program := self._programs.get(process_id)) is None:
            return await self._inner.send(process_id, data)  # says why it takes no input
        await program.send(data)
        await program.settle()
        return program.result()

    async def kill(self, process_id: str) -> CommandResult:
        if (program := self._programs.get(process_id)) is None:
            return await self._inner.kill(process_id)
        await program.close()
        return program.result()

    async def close(self) -> None:
        with anyio.CancelScope(shield=True):
            for program in self._programs.values():
                await program.close()
            self._programs.clear()
            await self._inner.close()
