"""Reading request params by hand, for the methods on the start-up path.

``initialize``, ``authenticate``, ``session/new`` and ``session/cancel`` are answered before the
generated pydantic models are imported (importing pydantic alone costs ~45 ms, the whole
budget for ``initialize``), so their few fields are checked here. The prompt, mode and option
methods read plain params by tables (``plain_params``); every other method validates its params
against the generated models in ``acp_server.protocol``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from acp_server.jsonrpc.errors import RpcError
from acp_server.jsonrpc.values import as_object as as_object_or_none
from agent_core.mcp.servers import HttpServer, McpServerSpec, StdioServer


def as_object(params: Any) -> dict[str, Any]:
    request = as_object_or_none(params)
    if request is None:
        raise RpcError.invalid_params("params must be an object")
    return request


def string(params: dict[str, Any], key: str) -> str:
    value = params.get(key)
    if not isinstance(value, str) or not value:
        raise RpcError.invalid_params(f"{key!r} must be a non-empty string")
    return value


def integer(params: dict[str, Any], key: str) -> int:
    value = params.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise RpcError.invalid_params(f"{key!r} must be an integer")
    return value


def optional_list(params: dict[str, Any], key: str) -> list[Any]:
    value = params.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise RpcError.invalid_params(f"{key!r} must be an array")
    return cast(list[Any], value)


def absolute(value: Any, what: str) -> Path:
    """An absolute path (it need not exist)."""
    if not isinstance(value, str) or not value:
        raise RpcError.invalid_params(f"{what} must be a non-empty string")
    if "\0" in value:
        raise RpcError.invalid_params(f"{what} must not contain a NUL character")
    path = Path(value)
    if not path.is_absolute():
        raise RpcError.invalid_params(f"{what} must be an absolute path, got {value!r}")
    return path


def directory(value: Any, what: str) -> Path:
    """An absolute path to an existing directory, resolved."""
    path = absolute(value, what)
    if not path.is_dir():
        problem = "is not a directory" if path.exists() else "does not exist"
        raise RpcError.invalid_params(f"{what} {value!r} {problem}")
    return path.resolve()


def heron_meta(params: dict[str, Any], key: str) -> Any:
    """``_meta.heron.<key>`` of a request (Heron's own parameters), or None."""
    meta = as_object_or_none(params.get("_meta")) or {}
    return (as_object_or_none(meta.get("heron")) or {}).get(key)


def system_prompt(params: dict[str, Any]) -> tuple[str, str] | None:
    """The editor's ``systemPrompt`` as (mode, text): ``append`` or ``override``, text only."""
    value = params.get("systemPrompt")
    if value is None:
        return None
    prompt = as_object_or_none(value)
    if prompt is None:
        raise RpcError.invalid_params("'systemPrompt' must be an object with 'mode' and 'content'")
    mode, content = prompt.get("mode"), prompt.get("content")
    if mode not in ("append", "override"):
        raise RpcError.invalid_params(
            f"systemPrompt mode {mode!r} is not supported; use 'append' or 'override'"
        )
    if not isinstance(content, list) or not content:
        raise RpcError.invalid_params(
            "systemPrompt content must be a non-empty array of text blocks"
        )
    texts: list[str] = []
    for block in cast(list[Any], content):
        block_object = as_object_or_none(block) or {}
        if block_object.get("type") != "text" or not isinstance(block_object.get("text"), str):
            raise RpcError.invalid_params("systemPrompt content may only hold text blocks")
        texts.append(block_object["text"])
    return mode, "\n\n".join(texts)


def mcp_servers(params: dict[str, Any]) -> tuple[McpServerSpec, ...]:
    """The editor's ``mcpServers``: stdio (no ``type``), ``http`` or ``sse``."""
    servers: list[McpServerSpec] = []
    for index, raw in enumerate(optional_list(params, "mcpServers")):
        server = as_object_or_none(raw)
        if server is None:
            raise RpcError.invalid_params(f"mcpServers[{index}] must be an object")
        name = string(server, "name")
        kind = server.get("type", "stdio")
        if kind == "stdio":
            args = optional_list(server, "args")
            if not all(isinstance(a, str) for a in args):
                raise RpcError.invalid_params(f"MCP server {name!r}: args must be strings")
            env = _pairs(server, "env", name)
            servers.append(StdioServer(name, string(server, "command"), tuple(args), env))
        elif kind in ("http", "sse"):
            headers = _pairs(server, "headers", name)
            servers.append(HttpServer(name, string(server, "url"), headers, kind))
        else:
            raise RpcError.invalid_params(
                f"MCP server {name!r} uses transport {kind!r}; Heron supports stdio, http and sse"
            )
    return tuple(servers)


def _pairs(server: dict[str, Any], key: str, name: str) -> dict[str, str]:
    """``env`` or ``headers``: a list of ``{"name", "value"}`` objects."""
    pairs: dict[str, str] = {}
    for item in optional_list(server, key):
        pair = as_object_or_none(item) or {}
        if not isinstance(pair.get("name"), str) or not isinstance(pair.get("value"), str):
            raise RpcError.invalid_params(
                f"MCP server {name!r}: each of {key} must be {{'name': str, 'value': str}}"
            )
        pairs[pair["name"]] = pair["value"]
    return pairs
