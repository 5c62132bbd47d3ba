"""The parts of execute_code that need no agent: the generated stub and the interpreter choice."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent_core.codeexec.interpreter import project_interpreter
from agent_core.codeexec.rpc import ToolCallServer
from agent_core.codeexec.stub import StubTool, python_name, render, signature
from tests.support.sandbox import sandbox_for

SEARCH = StubTool(
    "search",
    'Search file contents. Uses "ripgrep".',
    {"properties": {"pattern": {}, "path": {}, "glob": {}}, "required": ["pattern"]},
)


def test_stub_functions_mirror_the_tools_schemas() -> None:
    assert signature(SEARCH) == "pattern, path=None, glob=None"
    assert (
        signature(
            StubTool(
                "terminal",
                "",
                {"properties": {"command": {}, "background": {}}, "required": ["command"]},
            )
        )
        == "command"
    )
    assert signature(StubTool("odd", "", {"properties": {"from": {}, "a-b": {}}})) == "**arguments"
    assert python_name("mcp__my-server__get.item") == "mcp__my_server__get_item"
    assert python_name("class") == "class_"
    source = render(
        [SEARCH, StubTool("mcp__db__query", 'Run """SQL""" \\ safely on "db"', {})],
        "/tmp/x/tools.sock",
    )
    tree = ast.parse(source, feature_version=(3, 8))  # it runs on the workspace's Python
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert {"search", "mcp__db__query", "_call", "_given"} <= functions
    assert "_SOCKET = '/tmp/x/tools.sock'" in source


@pytest.mark.anyio
async def test_a_broken_or_missing_workspace_python_falls_back_to_heron_s(tmp_path: Path) -> None:
    sandbox = sandbox_for(tmp_path, home=tmp_path / "home")
    fallback = await project_interpreter(tmp_path, {}, sandbox)
    assert fallback.python == Path(sys.executable) and fallback.note is None  # no venv: no note
    broken = tmp_path / ".venv" / "bin" / "python"
    broken.parent.mkdir(parents=True)
    broken.write_text("#!/bin/sh\nexit 3\n")
    broken.chmod(0o755)
    chosen = await project_interpreter(tmp_path, {"VIRTUAL_ENV": str(tmp_path / "gone")}, sandbox)
    assert chosen.python == Path(sys.executable)
    assert (
        chosen.note is not None
        and "is broken (exit 3)" in chosen.note
        and "VIRTUAL_ENV has no" in chosen.note
    )
    old = tmp_path / "old"
    (old / "bin").mkdir(parents=True)
    (old / "bin" / "python").write_text("#!/bin/sh\necho 3.6\n")
    (old / "bin" / "python").chmod(0o755)
    broken.unlink()
    too_old = await project_interpreter(tmp_path, {"CONDA_PREFIX": str(old)}, sandbox)
    assert too_old.note is not None and "older than 3.8" in too_old.note
    sandbox.close()


@pytest.mark.anyio
async def test_the_tool_call_server_answers_any_line_and_goes_on(tmp_path: Path) -> None:
    """A script is untrusted: whatever it sends gets a reply, and later calls still work."""

    async def dispatch(tool: str, arguments: dict[str, Any]) -> str:
        return f"{tool} ran"

    server = ToolCallServer(tmp_path / "rpc.sock", dispatch, max_calls=10)

    async def ask(line: bytes) -> dict[str, Any]:
        async with await anyio.connect_unix(server.path) as stream:
            await stream.send(line + b"\n")
            reply = b""
            while not reply.endswith(b"\n"):
                reply += await stream.receive()
        return json.loads(reply)

    async with anyio.create_task_group() as group:
        await group.start(server.serve)
        for line in (b"[" * 100_000, b'{"tool": "x", "arguments": ' + b"[" * 5_000, b"\xff"):
            answer = await ask(line)
            assert answer["ok"] is False and "bad request" in answer["error"]
        assert await ask(b'{"tool": "search", "arguments": {}}') == {
            "ok": True,
            "result": "search ran",
        }
        group.cancel_scope.cancel()
