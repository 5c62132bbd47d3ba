"""``EditorTerminal``: commands in the editor's terminals (``terminal/*``), so the user watches.

The timeout recipe is the protocol's: race ``wait_for_exit`` against a timer, then ``kill``,
read ``output``, and always ``release``. Each command is given ``ports.unattended``'s table on
top of the editor's environment.

ACP's terminals take no input, so an interactive program runs in a pseudo-terminal of Heron's
instead (``ports.interactive.WithTerminals`` wraps this runner), under the same sandbox
launcher the editor would have run.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio

from acp_server.jsonrpc.connection import Connection
from acp_server.jsonrpc.errors import RpcError
from acp_server.jsonrpc.values import as_object
from agent_core.errors import ToolError
from agent_core.ports.runner import NO_TERMINALS, CommandResult, Started, takes_no_input
from agent_core.ports.unattended import UNATTENDED

CALL_TIMEOUT_S = 30.0


class EditorTerminal:
    def __init__(self, connection: Connection, session_id: str) -> None:
        self._connection = connection
        self._session_id = session_id
        self._background: dict[str, str] = {}  # our id -> the editor's terminal id
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
        terminal_id = await self._create(argv, cwd, output_limit)
        try:
            await started(terminal_id)
            with anyio.move_on_after(time_limit) as waited:
                await self._call("terminal/wait_for_exit", terminal_id, wait=True)
            if waited.cancelled_caught:
                await self._call("terminal/kill", terminal_id)
            return _result(
                await self._call("terminal/output", terminal_id), waited.cancelled_caught
            )
        finally:
            with anyio.CancelScope(shield=True):
                await self._release(terminal_id)

    async def start(
        self, argv: Sequence[str], *, cwd: Path, output_limit: int, interactive: bool = False
    ) -> str:
        if interactive:
            raise ToolError(NO_TERMINALS)
        process_id = f"bg-{next(self._ids)}"
        terminal_id = await self._create(argv, cwd, output_limit)
        self._background[process_id] = terminal_id
        return process_id

    async def output(self, process_id: str) -> CommandResult:
        return _result(await self._call("terminal/output", self._terminal(process_id)), False)

    async def send(self, process_id: str, data: bytes) -> CommandResult:
        self._terminal(process_id)  # unknown: says which ones run
        raise ToolError(takes_no_input(process_id))

    async def kill(self, process_id: str) -> CommandResult:
        terminal_id = self._terminal(process_id)
        await self._call("terminal/kill", terminal_id)
        result = _result(await self._call("terminal/output", terminal_id), False)
        await self._release(terminal_id)
        del self._background[process_id]
        return result

    async def close(self) -> None:
        with anyio.CancelScope(shield=True):
            for terminal_id in self._background.values():
                await self._release(terminal_id, kill=True)
        self._background.clear()

    async def _create(self, argv: Sequence[str], cwd: Path, output_limit: int) -> str:
        """The editor runs ``argv`` as given: the sandbox launcher (on this same machine), the
        shell and the command, so the live terminal and the confinement go together."""
        params = {
            "sessionId": self._session_id,
            "command": argv[0],
            "args": list(argv[1:]),
            "cwd": str(cwd),
            "env": [{"name": s.name, "value": s.value} for s in UNATTENDED],
            "outputByteLimit": output_limit,
        }
        try:
            result = await self._connection.request(
                "terminal/create", params, timeout=CALL_TIMEOUT_S
            )
        except RpcError as exc:
            raise ToolError(f"The editor could not start the command: {exc.explained}") from exc
        return str(result["terminalId"])

    async def _call(self, method: str, terminal_id: str, *, wait: bool = False) -> Any:
        """``wait``: no time limit (``wait_for_exit`` is raced by the caller's own timer)."""
        params = {"sessionId": self._session_id, "terminalId": terminal_id}
        try:
            timeout = None if wait else CALL_TIMEOUT_S
            return await self._connection.request(method, params, timeout=timeout)
        except RpcError as exc:
            raise ToolError(f"{method} failed: {exc.explained}") from exc

    async def _release(self, terminal_id: str, *, kill: bool = False) -> None:
        try:
            if kill:
                await self._call("terminal/kill", terminal_id)
            await self._call("terminal/release", terminal_id)
        except ToolError:
            pass  # the editor may already have dropped it; nothing left to free

    def _terminal(self, process_id: str) -> str:
        if process_id not in self._background:
            known = ", ".join(self._background) or "none"
            raise ToolError(f"No background process {process_id!r}; running: {known}.")
        return self._background[process_id]


def _result(output: dict[str, Any], timed_out: bool) -> CommandResult:
    status = as_object(output.get("exitStatus")) or {}
    exit_code = status.get("exitCode")
    return CommandResult(
        str(output.get("output", "")),
        exit_code,
        status.get("signal"),
        bool(output.get("truncated")),
        timed_out,
    )
