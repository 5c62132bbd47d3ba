"""How to reach an MCP server: a command to run (stdio) or a URL (streamable HTTP or SSE).

Pure data, so the ACP layer and the config file can both describe servers without importing the
SDK. The editor's list wins over the user's on a name clash.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Literal, NamedTuple


class StdioServer(NamedTuple):
    name: str
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = MappingProxyType({})
    transport: Literal["stdio"] = "stdio"

    @property
    def where(self) -> str:
        return " ".join((self.command, *self.args))


class HttpServer(NamedTuple):
    """A remote server: ``http`` is streamable HTTP, ``sse`` the older HTTP+SSE transport."""

    name: str
    url: str
    headers: Mapping[str, str] = MappingProxyType({})
    transport: Literal["http", "sse"] = "http"

    @property
    def where(self) -> str:
        return self.url


McpServerSpec = StdioServer | HttpServer


def merge(editor: Iterable[McpServerSpec], user: Iterable[McpServerSpec]) -> list[McpServerSpec]:
    """Every server once, by name: the editor's first, then the user's it does not override."""
    chosen: dict[str, McpServerSpec] = {}
    for server in (*editor, *user):
        chosen.setdefault(server.name, server)
    return list(chosen.values())
