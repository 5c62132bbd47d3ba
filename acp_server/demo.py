"""``heron demo``: a scripted session through ``heron acp`` over real stdio, shown in the terminal.

Copies a small sample project to a temp dir, starts the agent as a subprocess with the offline
scripted model, and drives it with the project's own JSON-RPC connection, printing what an
editor would show: streamed text, thoughts, tool calls and plans.
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
from acp_server.jsonrpc.transport import StdioTransport, console

PROMPTS = (
    "What does this project do?",
    "Plan how to add a --shout flag to the greeter.",
)
DIM, BOLD, RESET = "\x1b[2m", "\x1b[1m", "\x1b[0m"


class DemoClient:
    """The client side: renders updates and approves what the agent asks."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._color = out.isatty()
        self._streaming: str | None = None  # the kind of chunk being streamed

    async def handle_request(self, method: str, params: Any) -> Any:
        if method == "session/request_permission":
            title = params["toolCall"].get("title", "a tool call")
            self._line(f"? permission for {title}: allowed (demo approves everything)")
            return {
                "outcome": {"outcome": "selected", "optionId": params["options"][0]["optionId"]}
            }
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
        elif kind == "tool_call_update" and update.get("status") in ("completed", "failed"):
            self._line(f"  ⎿ {update['status']}")
        elif kind == "plan":
            marks = {"completed": "[x]", "in_progress": "[~]", "pending": "[ ]"}
            self._line(
                "Plan:\n"
                + "\n".join(f"  {marks[e['status']]} {e['content']}" for e in update["entries"])
            )
        elif kind == "usage_update":
            self._line(self._style(DIM, f"context: {update['used']:,} / {update['size']:,} tokens"))

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
        shutil.copytree(source, workspace, dirs_exist_ok=True)
    out = console()
    agent = subprocess.Popen(
        [sys.executable, "-m", "acp_server", "--model", "scripted:demo"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        anyio.run(_drive, agent, workspace, DemoClient(out))
        return agent.wait(timeout=5)
    finally:
        if agent.poll() is None:
            agent.kill()
        if keep:
            out.write(f"\nThe sample project is kept at {workspace}\n")
        else:
            shutil.rmtree(workspace, ignore_errors=True)


async def _drive(agent: subprocess.Popen[bytes], workspace: Path, client: DemoClient) -> None:
    """Initialize, open a session in ``workspace``, play the prompts, then close the input."""
    assert agent.stdin is not None and agent.stdout is not None
    transport = StdioTransport(os.dup(agent.stdout.fileno()), os.dup(agent.stdin.fileno()))
    agent.stdin.close()
    agent.stdout.close()
    connection = Connection(transport)
    async with anyio.create_task_group() as group:
        group.start_soon(connection.serve, client)
        init = await connection.request(
            "initialize",
            {
                "protocolVersion": 1,
                "clientInfo": {"name": "heron-demo", "version": __version__},
                "clientCapabilities": {},
            },
            timeout=10,
        )
        info = init["agentInfo"]
        client.heading(f"Connected to {info['title']} {info['version']} in {workspace}")
        session = await connection.request(
            "session/new", {"cwd": str(workspace), "mcpServers": []}, timeout=10
        )
        for text in PROMPTS:
            client.heading(f"\n> {text}")
            params = {"sessionId": session["sessionId"], "prompt": [{"type": "text", "text": text}]}
            result = await connection.request("session/prompt", params)
            client.heading(f"[turn ended: {result['stopReason']}]")
        transport.close()  # end of input for the agent: it exits, and serve() sees the end
