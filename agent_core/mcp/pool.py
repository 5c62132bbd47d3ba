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
        self._cwd, self._setup, self._timeouts, self._report = cwd, setup, timeouts, report
        self.connections = tuple(self._connection(s) for s in specs)
        self.generation = 0  # counts the servers added since (``follow``)
        self._started = False
        self._closed = False
        self._stopped = anyio.Event()
        self._closing = anyio.Event()
        self._group: anyio.abc.TaskGroup | None = None  # where they run, once started

    def _connection(self, spec: McpServerSpec) -> McpConnection:
        return McpConnection(spec, self._cwd, self._setup, self._timeouts, self._report)

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
                self._group = group
                for connection in self.connections:
                    group.start_soon(_isolated, connection)
                await self._closing.wait()  # open for servers added meanwhile (``follow``)
        finally:
            self._stopped.set()

    def follow(self, specs: Sequence[McpServerSpec]) -> bool:
        """Servers the user's config.toml names now that the session lacks, added (and started,
        once the others are): whether any were. A server removed from the file keeps running
        until the session ends; one of the same name (the editor's) is left as it is."""
        known = {connection.name for connection in self.connections}
        added = tuple(self._connection(spec) for spec in specs if spec.name not in known)
        if not added or self._closed:
            return False
        self.connections += added
        self.generation += 1
        for connection in added if self._started else ():
            connection.arm()
            if self._group is not None:  # else ``_run``, about to start, takes them
                self._group.start_soon(_isolated, connection)
        return True

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
        self._closing.set()
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
