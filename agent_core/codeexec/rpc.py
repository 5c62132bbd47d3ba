"""Heron's end of the script's tool calls: a Unix-domain socket, one JSON request per
connection (``{"tool", "arguments"}``), one JSON reply (``{"ok", "result" | "error"}``)."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, cast

import anyio
import anyio.abc

from agent_core.errors import ToolError

log = logging.getLogger("heron.codeexec")

Dispatch = Callable[[str, dict[str, Any]], Awaitable[str]]  # raises ToolError for a failure
MAX_REQUEST_BYTES = 16 * 1024 * 1024


class ToolCallServer:
    """Answers a script's tool calls, at most ``max_calls`` of them."""

    def __init__(self, path: Path, dispatch: Dispatch, max_calls: int) -> None:
        self.path, self.calls = path, 0  # calls made; refused ones are not counted
        self._requests = 0
        self._dispatch, self._max_calls = dispatch, max_calls

    async def serve(
        self, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        listener = await anyio.create_unix_listener(self.path)
        task_status.started()
        async with listener, anyio.create_task_group() as group:
            while True:
                stream = await listener.accept()
                group.start_soon(self._answer, stream)

    async def _answer(self, stream: anyio.abc.SocketStream) -> None:
        async with stream:
            try:
                reply = await self._reply(await _read_line(stream))
            except (anyio.EndOfStream, anyio.BrokenResourceError, ValueError) as exc:
                reply = {"ok": False, "error": f"bad request: {exc}"}
            except RecursionError:  # the script is untrusted: nesting too deep to decode
                reply = {"ok": False, "error": "bad request: nested too deeply"}
            try:
                await stream.send(json.dumps(reply, ensure_ascii=False).encode() + b"\n")
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                log.debug("the script left before its reply")

    async def _reply(self, line: bytes) -> dict[str, Any]:
        request: Any = json.loads(line)
        fields = cast(dict[str, Any], request) if isinstance(request, dict) else {}
        tool, arguments = fields.get("tool"), fields.get("arguments", {})
        if not isinstance(tool, str) or not isinstance(arguments, dict):
            return {"ok": False, "error": 'a request is {"tool": name, "arguments": {...}}'}
        self._requests += 1
        if self.calls >= self._max_calls:
            return {
                "ok": False,
                "error": f"this script may make at most {self._max_calls} tool calls; "
                f"call {self._requests} ({tool}) was refused",
            }
        self.calls += 1
        try:
            return {
                "ok": True,
                "result": await self._dispatch(tool, cast(dict[str, Any], arguments)),
            }
        except ToolError as exc:
            return {"ok": False, "error": str(exc)}


async def _read_line(stream: anyio.abc.SocketStream) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        data += await stream.receive()
        if len(data) > MAX_REQUEST_BYTES:
            raise ValueError(f"a request may be at most {MAX_REQUEST_BYTES} bytes")
    return data
