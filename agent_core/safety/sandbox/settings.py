"""``[sandbox]`` in config.toml: read by ``agent_core.config``, obeyed by ``confinement``. Its own
module because config is on the start-up path and must not load the rest of the sandbox."""

from __future__ import annotations

from typing import Any, NamedTuple

from agent_core.config_values import choice, strings
from agent_core.errors import ConfigError


class SandboxSettings(NamedTuple):
    """``[sandbox]``: how commands, scripts and (optionally) MCP servers are confined."""

    enabled: bool = True  # false: never sandbox (the outer container is the sandbox)
    required: bool = True  # without a sandbox, what would run without a question asks
    network: str = "allow"  # or "deny": sandboxed processes get no network at all
    writable: tuple[str, ...] = ()  # more folders they may write, on top of the caches
    hidden: tuple[str, ...] = ()  # more paths they may not see, on top of credential stores
    mcp_servers: bool = False  # run stdio MCP servers inside the sandbox too


_FLAGS = {"enabled": True, "required": True, "mcp_servers": False}


def read_sandbox(section: dict[str, Any]) -> SandboxSettings:
    flags = {key: section.get(key, default) for key, default in _FLAGS.items()}
    for key, value in flags.items():
        if not isinstance(value, bool):
            raise ConfigError(f"config.toml: [sandbox] {key} must be true or false")
    return SandboxSettings(
        enabled=flags["enabled"],
        required=flags["required"],
        network=choice(section, "network", ("allow", "deny")) or "allow",
        writable=tuple(strings(section, "writable")),
        hidden=tuple(strings(section, "hidden")),
        mcp_servers=flags["mcp_servers"],
    )
