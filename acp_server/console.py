"""A minimal terminal ACP client: ``heron demo``.

It starts ``heron acp`` as a subprocess and drives it over real stdio with the project's own
JSON-RPC connection, printing what an editor would show: streamed text, thoughts, tool calls,
plans and usage. It copies a small sample project to a temp dir and plays the offline scripted
model, approving everything. (``heron exec``, in ``headless/``, is the client for real work.)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

import anyio

from acp_server import __version__
from acp_server.jsonrpc.connection import Connection
from acp_server.jsonrpc.errors import RpcError
from acp_server.jsonrpc.stdio import console
from acp_server.jsonrpc.transport import StdioTransport

DEMO_PROMPTS = (
    "What does this project do?",
    "Add a --shout flag to the greeter.",
)
DIM, BOLD, RESET = "\x1b[2m", "\x1b[1m", "\x1b[0m"


class ConsoleClient:
    """The client side: renders updates and approves what is asked."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._color = out.isatty()
        self._streaming: str | None = None  # the kind of chunk being streamed

    async def handle_request(self, method: str, params: Any) -> Any:
        if method == "session/request_permission":
            return await self._permission(params)
        raise RpcError.method_not_found(method)

    async def handle_notification(self, method: str, params: Any) -> None:
        if method == "session/update":
            self.render(params["update"])

    async def input_closed(self) -> None:
        return None

    def cancel_request(self, method: str, params: Any) -> bool:
        return False

    def render(self, update: dict[str, Any]) -> None:
        kind = update["sessionUpdate"]
        if kind in ("agent_message_chunk", "agent_thought_chunk"):
            if self._streaming != kind:
                self._end_stream()
                self._write(self._style(DIM, "thinking: ") if kind == "agent_thought_chunk" else "")
                self._streaming = kind
            text = update["content"].get("text", "")
            self._write(self._style(DIM, text) if kind == "agent_thought_chunk" else text)
        elif kind == "tool_call":
            self._line(f"⏺ {update['title']} ({update.get('kind', 'other')})")
        elif kind == "tool_call_update":
            self._tool_progress(update)
        elif kind == "plan":
            marks = {"completed": "[x]", "in_progress": "[~]", "pending": "[ ]"}
            self._line(
                "Plan:\n"
                + "\n".join(f"  {marks[e['status']]} {e['content']}" for e in update["entries"])
            )
        elif kind == "usage_update":
            self._line(self._style(DIM, f"context: {update['used']:,} / {update['size']:,} tokens"))

    def _tool_progress(self, update: dict[str, Any]) -> None:
        contents: list[dict[str, Any]] = update.get("content") or []
        for content in contents:
            if content["type"] == "diff":
                old = str(content.get("oldText") or "").splitlines()
                new = str(content["newText"]).splitlines()
                removed = [f"  - {line}" for line in old if line not in new]
                added = [f"  + {line}" for line in new if line not in old]
                self._line(
                    self._style(DIM, "\n".join([f"  diff {content['path']}", *removed, *added]))
                )
        if update.get("status") in ("completed", "failed"):
            raw_output: dict[str, Any] = update.get("rawOutput") or {}
            first = str(raw_output.get("output", "")).strip().splitlines()[:3]
            self._line(f"  ⎿ {update['status']}" + "".join(f"\n    {line}" for line in first))

    async def _permission(self, params: dict[str, Any]) -> dict[str, Any]:
        title = params["toolCall"].get("title", "a tool call")
        self._line(f"? {title}: allowed (the demo approves everything)")
        return {"outcome": {"outcome": "selected", "optionId": params["options"][0]["optionId"]}}

    def heading(self, text: str) -> None:
        self._line(self._style(BOLD, text))

    def _line(self, text: str) -> None:
        self._end_stream()
        self._write(text + "\n")

    def _end_stream(self) -> None:
        if self._streaming is not None:
            self._write("\n")
            self._streaming = None

    def _style(self, code: str, text: str) -> str:
        return f"{code}{text}{RESET}" if self._color else text

    def _write(self, text: str) -> None:
        self._out.write(text)
        self._out.flush()


def run_demo(*, keep: bool = False) -> int:
    workspace = Path(tempfile.mkdtemp(prefix="heron-demo-"))
    sample = resources.files("acp_server").joinpath("demo_project")
    with resources.as_file(sample) as source:
        # Byte-code compiled in an installation is no part of the sample project.
        ignored = shutil.ignore_patterns("__pycache__", "*.pyc")
        shutil.copytree(source, workspace, dirs_exist_ok=True, ignore=ignored)
    out = console()
    try:
        client = ConsoleClient(out)
        return _run(["--model", "scripted:demo"], workspace, DEMO_PROMPTS, client)
    finally:
        if keep:
            out.write(f"\nThe sample project is kept at {workspace}\n")
        else:
            shutil.rmtree(workspace, ignore_errors=True)


def _run(args: list[str], workspace: Path, prompts: tuple[str, ...], client: ConsoleClient) -> int:
    agent = subprocess.Popen(
        [sys.executable, "-m", "acp_server", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        status = anyio.run(_drive, agent, workspace, prompts, client)
    finally:
        try:
            agent.wait(timeout=5)
        except subprocess.TimeoutExpired:
            agent.kill()
    return status or agent.returncode


async def _drive(
    agent: subprocess.Popen[bytes], workspace: Path, prompts: tuple[str, ...], client: ConsoleClient
) -> int:
    """Initialize, open a session in ``workspace``, play the prompts, then close the input."""
    assert agent.stdin is not None and agent.stdout is not None
    transport = StdioTransport(os.dup(agent.stdout.fileno()), os.dup(agent.stdin.fileno()))
    agent.stdin.close()
    agent.stdout.close()
    connection = Connection(transport)
    async with anyio.create_task_group() as group:
        group.start_soon(connection.serve, client)
        try:
            await _session(connection, workspace, prompts, client)
        except RpcError as exc:
            client.heading(f"heron: {exc.message}")
            return 1
        finally:
            transport.close()  # end of input for the agent: it exits, and serve() sees the end
    return 0


async def _session(
    connection: Connection, workspace: Path, prompts: tuple[str, ...], client: ConsoleClient
) -> None:
    hello = {
        "protocolVersion": 1,
        "clientInfo": {"name": "heron-console", "version": __version__},
        "clientCapabilities": {},
    }
    info = (await connection.request("initialize", hello, timeout=10))["agentInfo"]
    client.heading(f"Connected to {info['title']} {info['version']} in {workspace}")
    new: dict[str, Any] = {"cwd": str(workspace), "mcpServers": []}
    session_id = (await connection.request("session/new", new, timeout=10))["sessionId"]
    for text in prompts:
        client.heading(f"\n> {text}")
        params = {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
        result = await connection.request("session/prompt", params)
        client.heading(f"[turn ended: {result['stopReason']}]")
