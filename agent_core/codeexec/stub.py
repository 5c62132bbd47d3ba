"""The ``heron_tools`` module a script imports: one function per tool, each a JSON request over
a Unix-domain socket to Heron. Generated per run from the tools' JSON schemas. Pure.

The generated code runs on the workspace's Python, so it keeps to what Python 3.8 accepts.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping, Sequence
from typing import Any

from msgspec import Struct

HIDDEN = {"terminal": {"background", "interactive"}}  # scripts run commands in the foreground


class StubTool(Struct, frozen=True):
    name: str
    description: str
    schema: Mapping[str, Any]


def python_name(tool: str) -> str:
    """A tool name as a Python name: ``mcp__my-server__query`` -> ``mcp__my_server__query``."""
    name = re.sub(r"\W", "_", tool)
    return f"{name}_" if keyword.iskeyword(name) or name[0].isdigit() else name


def signature(tool: StubTool) -> str:
    """``path, offset=None, limit=None``: required parameters first; ``**arguments`` when the
    schema's names are not all Python identifiers."""
    properties = [
        p for p in tool.schema.get("properties", {}) if p not in HIDDEN.get(tool.name, ())
    ]
    required = set(tool.schema.get("required", ()))
    if not all(p.isidentifier() and not keyword.iskeyword(p) for p in properties):
        return "**arguments"
    first = [p for p in properties if p in required]
    rest = [f"{p}=None" for p in properties if p not in required]
    return ", ".join(first + rest)


def render(tools: Sequence[StubTool], socket_path: str) -> str:
    functions = [_function(tool) for tool in tools]
    return _HEADER.format(socket=repr(socket_path)) + "\n\n".join(functions) + "\n"


def _function(tool: StubTool) -> str:
    params = signature(tool)
    if params == "**arguments":
        call = "arguments"
    else:
        names = [p.split("=")[0] for p in params.split(", ") if p]
        call = "_given(" + ", ".join(f"{n}={n}" for n in names) + ")"
    summary = " ".join(tool.description.split())[:400]
    return (
        f"def {python_name(tool.name)}({params}):\n"
        f"    {summary!r}\n"  # a docstring written as a literal: any text is safe in it
        f"    return _call({tool.name!r}, {call})\n"
    )


_HEADER = '''"""Heron's tools for this script, generated for one run. Each call goes to Heron,
which runs it as if the model had called the tool (with the same approvals) and returns its text.
"""

import json
import socket

_SOCKET = {socket}


class HeronToolError(Exception):
    """The tool failed or was refused; the message says why."""


def _given(**arguments):
    return {{name: value for name, value in arguments.items() if value is not None}}


def _call(tool, arguments):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(_SOCKET)
        request = json.dumps({{"tool": tool, "arguments": arguments}}) + "\\n"
        connection.sendall(request.encode("utf-8"))
        data = b""
        while not data.endswith(b"\\n"):
            chunk = connection.recv(65536)
            if not chunk:
                raise HeronToolError("Heron closed the connection")
            data += chunk
    reply = json.loads(data.decode("utf-8"))
    if not reply["ok"]:
        raise HeronToolError(reply["error"])
    return reply["result"]


'''
