"""A session's MCP servers: started together in the background, each on its own deadline.

``session/new`` never waits for them. The first prompt does (``ready``), so its tools include
every server that started; a server that fails or hangs costs at most the connect timeout, once.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.abc

from agent_core.mcp.connection import McpConnection, Report, Timeouts
from agent_core.mcp.servers import McpServerSpec
from agent_core.mcp.stdio import ProcessSetup

if TYPE_CHECKING:  # the toolset (and pydantic) loads after `session/new` is answered
    from agent_core.tools.base import Tool

log = logging.getLogger("heron.mcp")


class McpServers:
    def __init__(
        self,
        specs: Sequence[McpServerSpec],
        cwd: Path,
        setup: ProcessSetup,
        timeouts: Timeouts,
        report: Report,
    ) -> None:
        self.connections = tuple(McpConnection(s, cwd, setup, timeouts, report) for s in specs)
        self._started = False
        self._closed = False
        self._stopped = anyio.Event()

    def start(self, background: anyio.abc.TaskGroup) -> None:
        """Connect every server, concurrently, in tasks that outlive the request (once; never
        after ``close``)."""
        if self._started or self._closed:
            return
        self._started = True
        for connection in self.connections:
            connection.arm()
        background.start_soon(self._run)

    async def _run(self) -> None:
        try:
            async with anyio.create_task_group() as group:
                for connection in self.connections:
                    group.start_soon(_isolated, connection)
        finally:
            self._stopped.set()

    async def ready(self) -> None:
        """Every server has connected or timed out."""
        if self._started:
            for connection in self.connections:
                await connection.wait_settled()

    def tools(self, *, read_only: bool = False) -> dict[str, Tool]:
        """Every connected server's tools (``read_only``: those the server says only read)."""
        from agent_core.mcp.tool import McpTool, tool_name

        tools: dict[str, Tool] = {}
        for connection in self.connections:
            for remote in connection.tools:
                if read_only and not remote.read_only:
                    continue
                name = tool_name(connection.name, remote.name)
                if name in tools:
                    log.warning(
                        "%s: tool %s is listed twice; keeping the first", connection.name, name
                    )
                    continue
                tools[name] = McpTool(name, connection, remote)
        return tools

    async def close(self) -> None:
        """Stop every server and wait until their processes are gone."""
        self._closed = True
        for connection in self.connections:
            connection.close()
        if self._started:
            await self._stopped.wait()


async def _isolated(connection: McpConnection) -> None:
    """A connection's task: whatever escapes it stays here, away from the server's other work."""
    try:
        await connection.run()
    except Exception:  # the background boundary: one server must not stop the agent
        log.exception("MCP server %s: unexpected failure", connection.name)
