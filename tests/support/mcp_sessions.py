"""Sessions with the test MCP servers (``tests.support.mcp_server``): a server's entry in
``session/new``'s ``mcpServers``, and a session opened with them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from tests.support.raw import RawAgent

SERVER = [sys.executable, "-m", "tests.support.mcp_server"]
ROOT = Path(__file__).resolve().parent.parent.parent


def stdio(name: str, mode: str = "stdio", env: dict[str, str] | None = None) -> dict[str, Any]:
    pairs = [{"name": k, "value": v} for k, v in (env or {}).items()]
    return {
        "name": name,
        "command": sys.executable,
        "args": ["-m", *SERVER[2:], mode],
        "env": [{"name": "PYTHONPATH", "value": str(ROOT)}, *pairs],
    }


def open_session(editor: RawAgent, workspace: Path, servers: list[dict[str, Any]]) -> str:
    response = editor.request("session/new", {"cwd": str(workspace), "mcpServers": servers})
    assert "result" in response, response
    return response["result"]["sessionId"]
