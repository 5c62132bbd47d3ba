"""The stdio transport for MCP servers: the server runs in its own process group, and the whole
group goes when the connection closes.

The SDK's own ``stdio_client`` kills the process tree only when the server fails to exit; a
server that exits politely leaves its children running (a language server, a browser, a
``sleep`` in a test). Here the group is always signalled after the server is gone, so nothing
it started outlives the session. Messages are framed as the SDK frames them: one JSON-RPC
message per line, validated by the SDK's own message adapter.
"""

from __future__ import annotations

import logging
import shutil
import signal
from collections.abc import AsyncGenerator, Callable, Mapping
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import anyio
from anyio.abc import Process
from anyio.streams.text import TextReceiveStream
from msgspec import Struct, field

from agent_core.mcp.servers import StdioServer
from agent_core.ports.groups import killed_with
from agent_core.ports.runner import exited, signal_group

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams
    from mcp.shared.message import SessionMessage

log = logging.getLogger("heron.mcp")

EXIT_GRACE_S = 2.0  # after stdin closes, before SIGTERM; then as long again before SIGKILL


class ProcessSetup(Struct, frozen=True):
    """How a stdio server is started: the environment it inherits (Heron's, secrets scrubbed;
    the server's own ``env`` goes on top) and what its command line runs inside (the sandbox,
    when ``[sandbox] mcp_servers`` is on)."""

    environment: Mapping[str, str]
    wrap: Callable[[list[str], Mapping[str, str]], list[str]] = field(
        default=lambda argv, env: argv
    )


@asynccontextmanager
async def stdio_transport(
    server: StdioServer, cwd: Path, setup: ProcessSetup, errlog: TextIO
) -> AsyncGenerator[TransportStreams]:
    from mcp.shared.message import SessionMessage

    environment = {**setup.environment, **server.env}
    program = shutil.which(server.command, path=environment.get("PATH")) or server.command
    process = await anyio.open_process(
        setup.wrap([program, *server.args], environment),
        env=environment,
        cwd=cwd,
        stderr=errlog,
        start_new_session=True,  # its own process group, so all of it can be stopped
    )
    to_session, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_server, from_session = anyio.create_memory_object_stream[SessionMessage](0)

    async def read_stdout() -> None:
        assert process.stdout is not None
        buffer = ""
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async with to_session:
                async for chunk in TextReceiveStream(process.stdout, errors="replace"):
                    *lines, buffer = (buffer + chunk).split("\n")
                    for line in lines:
                        if line.strip():
                            await to_session.send(_parse(line))

    async def write_stdin() -> None:
        assert process.stdin is not None
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async with from_session:
                async for message in from_session:
                    line = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(line.encode() + b"\n")
        await to_session.aclose()  # the server stopped reading: the session sees the end

    async with anyio.create_task_group() as pipes:
        pipes.start_soon(read_stdout)
        pipes.start_soon(write_stdin)
        try:
            yield from_server, to_server
        finally:
            with anyio.CancelScope(shield=True):
                await stop(process)
            pipes.cancel_scope.cancel()


async def stop(process: Process) -> None:
    """Close stdin and give the server time to exit; then stop its whole process group."""
    with killed_with(process):  # a sandbox's own session too
        if process.stdin is not None:
            with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await process.stdin.aclose()
        for sent in (None, signal.SIGTERM, signal.SIGKILL):
            if sent is not None:
                signal_group(process.pid, sent)
            if await exited(process, EXIT_GRACE_S):
                break
        signal_group(process.pid, signal.SIGKILL)  # whatever the server left behind
    for pipe in (process.stdout, process.stderr):
        if pipe is not None:
            with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                await pipe.aclose()


def _parse(line: str) -> SessionMessage | Exception:
    from mcp.shared.message import SessionMessage
    from mcp.types import jsonrpc_message_adapter

    try:
        return SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        log.warning("MCP server sent a line that is not JSON-RPC: %.200s", line)
        return exc
