"""One MCP server, connected for the life of a session, through the official ``mcp`` SDK.

``run`` is a long-lived task: it starts the server (or opens the HTTP session), lists its tools,
then holds the connection until ``close``. It never raises: whatever goes wrong becomes
``problem``, and the user is told through ``report``. The connect deadline is a cancel scope
deadline, lifted once the server has answered, so a server that hangs at start-up costs at most
``connect_timeout`` and is then cleaned up like any other.
"""

from __future__ import annotations

import importlib
import json
import logging
import math
import os
import tempfile
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

import anyio
from msgspec import Struct

from agent_core.errors import ToolError, innermost
from agent_core.events import NoticeRaised
from agent_core.mcp.servers import McpServerSpec, StdioServer
from agent_core.mcp.stdio import ProcessSetup, stdio_transport

if TYPE_CHECKING:
    from mcp.client.client import Client
    from mcp.types import CallToolResult

log = logging.getLogger("heron.mcp")

Report = Callable[[NoticeRaised], Awaitable[None]]
STDERR_TAIL_BYTES = 2000
SDK_MODULES = (
    "mcp.client.client",
    "mcp.client.sse",
    "mcp.client.streamable_http",
    "httpx2",
)
HTTP_TIMEOUT_S, HTTP_READ_TIMEOUT_S = 30.0, 300.0  # the SDK's own defaults


class RemoteTool(Struct, frozen=True):
    """A tool as the server lists it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    title: str | None = None
    read_only: bool = False  # the server's hint


class Timeouts(Struct, frozen=True):
    connect: float = 10.0  # seconds to start and list tools
    call: float = 300.0  # seconds for one tool call


class McpConnection:
    def __init__(
        self,
        spec: McpServerSpec,
        cwd: Path,
        setup: ProcessSetup,
        timeouts: Timeouts,
        report: Report,
    ) -> None:
        self.spec = spec
        self._setup = setup  # how a stdio server's process starts
        self.tools: tuple[RemoteTool, ...] = ()
        self.problem: str | None = None  # why the server cannot be used, once it cannot
        self.settled = anyio.Event()  # connected, or given up on
        self._cwd, self._timeouts, self._report = cwd, timeouts, report
        self._client: Client | None = None
        self._closing = anyio.Event()
        self._scope = anyio.CancelScope()  # connecting: its deadline is the connect timeout
        self._errlog: TextIO | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    async def run(self) -> None:
        """Connect, then hold the connection until ``close``; never raises."""
        started = anyio.current_time()
        with tempfile.NamedTemporaryFile(
            "a+", encoding="utf-8", errors="replace", prefix="heron-mcp-", suffix=".log"
        ) as file:
            self._errlog = errlog = cast(TextIO, file)
            with self._scope as scope:
                try:
                    await anyio.to_thread.run_sync(_import_sdk)  # ~0.5 s, off the event loop
                    async with self._open(errlog) as client:
                        self.tools = await self._screened(await _list_tools(client))
                        self._client, scope.deadline = client, math.inf
                        self.settled.set()
                        log.info(
                            "%s: %d tools in %.2f s", self.name, len(self.tools), _since(started)
                        )
                        await self._closing.wait()
                except Exception as exc:  # noqa: BLE001 - a broken server must not break the session
                    when = "stopped" if self.settled.is_set() else "did not start"
                    await self._fail(f"{when}: {_describe(exc)}")
                finally:
                    self._client = None
            if scope.cancelled_caught and not (self.settled.is_set() or self._closing.is_set()):
                await self._fail(f"did not start within {self._timeouts.connect:g} s")
            self.settled.set()
            self._errlog = None

    def arm(self) -> None:
        """Start the connect timeout; ``run`` gives up on the server when it passes."""
        self._scope.deadline = anyio.current_time() + self._timeouts.connect

    async def wait_settled(self) -> None:
        """Until the server is connected or its connect timeout has passed, not longer (its
        clean-up may take a while more)."""
        with anyio.move_on_at(self._scope.deadline):
            await self.settled.wait()
        if not self.settled.is_set():
            await self._fail(f"did not start within {self._timeouts.connect:g} s")

    def close(self) -> None:
        self._closing.set()
        if not self.settled.is_set():
            self._scope.cancel()  # still connecting: stop now

    async def call(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        """Call one tool; raises ``ToolError`` with what the user and the model need to know."""
        client = self._client
        if client is None:
            raise ToolError(self._unavailable())
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED
        from pydantic import ValidationError

        try:
            with anyio.fail_after(self._timeouts.call):
                return await client.call_tool(tool, arguments)
        except TimeoutError:
            raise ToolError(
                f"MCP server {self.name!r} did not answer {tool} within {self._timeouts.call:g} s."
            ) from None
        except MCPError as exc:
            if exc.code != CONNECTION_CLOSED:
                message = f"MCP server {self.name!r} refused {tool}: {exc.error.message}"
                raise ToolError(message) from None
            self._client = None
            await self._fail(f"stopped: {exc.error.message}")
            raise ToolError(self._unavailable()) from None
        except ValidationError as exc:
            raise ToolError(
                f"MCP server {self.name!r} answered {tool} with malformed data: "
                f"{_describe(exc)}{self._stderr_note()}"
            ) from None

    @asynccontextmanager
    async def _open(self, errlog: TextIO) -> AsyncGenerator[Client]:
        from mcp.client.client import Client

        spec = self.spec
        if isinstance(spec, StdioServer):
            async with Client(stdio_transport(spec, self._cwd, self._setup, errlog)) as client:
                yield client
        elif spec.transport == "sse":
            from mcp.client.sse import sse_client

            async with Client(sse_client(spec.url, headers=dict(spec.headers))) as client:
                yield client
        else:
            import httpx2  # the SDK's HTTP client: how its docs say to pass headers
            from mcp.client.streamable_http import streamable_http_client

            timeout = httpx2.Timeout(HTTP_TIMEOUT_S, read=HTTP_READ_TIMEOUT_S)
            async with (
                httpx2.AsyncClient(headers=dict(spec.headers), timeout=timeout) as http,
                Client(streamable_http_client(spec.url, http_client=http)) as client,
            ):
                yield client

    async def _screened(self, tools: tuple[RemoteTool, ...]) -> tuple[RemoteTool, ...]:
        """The tools, less those whose descriptions try to instruct the model (the model reads
        them as it reads the system prompt); the user is told of each left out."""
        from agent_core.safety.injection import screen

        kept: list[RemoteTool] = []
        for tool in tools:
            schema = json.dumps(tool.input_schema, ensure_ascii=False)
            problem = screen("\n".join((tool.title or "", tool.description, schema)))
            if problem is None:
                kept.append(tool)
                continue
            log.warning("MCP server %s: tool %s left out: %s", self.name, tool.name, problem)
            title = f"MCP server {self.name}: tool {tool.name} left out"
            await self._report(NoticeRaised("warning", title, f"Its description: {problem}."))
        return tuple(kept)

    async def _fail(self, problem: str) -> None:
        if self.problem is not None:
            return
        self.problem = problem
        log.warning("MCP server %s %s%s", self.name, problem, self._stderr_note())
        detail = f"{self.spec.where}{self._stderr_note()}"
        await self._report(NoticeRaised("warning", f"MCP server {self.name} {problem}", detail))

    def _unavailable(self) -> str:
        why = self.problem or "is not connected"
        return f"MCP server {self.name!r} {why}.{self._stderr_note()}"

    def _stderr_note(self) -> str:
        tail = self.stderr_tail()
        return f"\nIts last output on stderr:\n{tail}" if tail else ""

    def stderr_tail(self) -> str:
        """The end of what a stdio server wrote to stderr (empty for HTTP servers)."""
        if self._errlog is None:
            return ""
        fd = self._errlog.fileno()  # read through our own handle: the name may be gone
        size = os.fstat(fd).st_size
        tail = os.pread(fd, STDERR_TAIL_BYTES, max(0, size - STDERR_TAIL_BYTES))
        return tail.decode("utf-8", errors="replace").strip()


async def _list_tools(client: Client) -> tuple[RemoteTool, ...]:
    tools: list[RemoteTool] = []
    cursor: str | None = None
    while True:
        page = await client.list_tools(cursor=cursor)
        for tool in page.tools:
            hints = tool.annotations
            tools.append(
                RemoteTool(
                    tool.name,
                    tool.description or "",
                    tool.input_schema,
                    tool.title or (hints.title if hints else None),
                    bool(hints and hints.read_only_hint),
                )
            )
        cursor = page.next_cursor
        if not cursor:
            return tuple(tools)


def _import_sdk() -> None:
    for module in SDK_MODULES:
        importlib.import_module(module)


def _describe(exc: BaseException) -> str:
    """One line for an exception, looking inside exception groups (the SDK's task groups)."""
    exc = innermost(exc)
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _since(started: float) -> float:
    return anyio.current_time() - started
