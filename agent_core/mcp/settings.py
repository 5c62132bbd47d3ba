"""``[mcp_servers.<name>]`` and ``[mcp]`` in config.toml: read by ``agent_core.config``, obeyed
by the pool. Its own module because config is on the start-up path and must not load the SDK."""

from __future__ import annotations

from typing import Any, NamedTuple

from agent_core.config_values import choice, number, string, string_table, strings, table
from agent_core.errors import ConfigError
from agent_core.mcp.servers import HttpServer, McpServerSpec, StdioServer


class McpTimeouts(NamedTuple):
    """``[mcp]``: seconds to start a server, and for one tool call."""

    connect: float = 10.0
    call: float = 300.0


def read_servers(section: dict[str, Any]) -> tuple[McpServerSpec, ...]:
    """``[mcp_servers.<name>]``: ``command`` (+ ``args``, ``env``) or ``url`` (+ ``headers``,
    ``transport = "http" | "sse"``)."""
    servers: list[McpServerSpec] = []
    for name in section:
        label = f"[mcp_servers.{name}]"
        server = table(section, name, label)
        command, url = string(server, "command"), string(server, "url")
        if (command is None) == (url is None):
            raise ConfigError(f"config.toml: {label} needs either command or url")
        if command is not None:
            env = string_table(server, "env", f"{label} env")
            servers.append(StdioServer(name, command, tuple(strings(server, "args")), env))
            continue
        sse = choice(server, "transport", ("http", "sse")) == "sse"
        headers = string_table(server, "headers", f"{label} headers")
        servers.append(HttpServer(name, url or "", headers, "sse" if sse else "http"))
    return tuple(servers)


def read_timeouts(section: dict[str, Any]) -> McpTimeouts:
    defaults = McpTimeouts()
    return McpTimeouts(
        connect=number(section, "connect_timeout", defaults.connect, minimum=0.1),
        call=number(section, "call_timeout", defaults.call, minimum=0.1),
    )
