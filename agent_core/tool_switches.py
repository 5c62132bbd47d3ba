"""``[tools]`` in config.toml: tools the user switched off, everywhere or in one mode.

    [tools]
    disabled = ["execute_code", "web_fetch"]   # in every mode

    [tools.modes.plan]
    disabled = ["terminal"]                    # in plan mode too

A tool switched off is left out of the model's tool list, of the system prompt's guidance, of
``execute_code``'s ``heron_tools`` module and of what subagents may have. Read by
``agent_core.config`` (the start-up path: plain values only, no tool is imported here); the
session applies it (``acp_server.wiring``).

``terminal`` off takes ``process`` with it: ``process`` only reads or stops what ``terminal``
started in the background. An MCP server's tool is named as the model sees it,
``mcp__<server>__<tool>``; those names are known only once the servers answer, so any
``mcp__`` name is accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from agent_core.config_values import strings, table
from agent_core.errors import ConfigError
from agent_core.modes import MODES

BUILT_IN = (  # every tool Heron itself offers (tests/test_tool_switches.py keeps it whole)
    *("read_file", "edit_file", "write_file", "search", "find_files", "terminal", "process"),
    *("todo", "switch_mode", "session_search", "diagnostics", "clarify", "web_fetch"),
    *("web_search", "execute_code", "memory", "skill", "delegate"),
)
COMPANIONS: Mapping[str, tuple[str, ...]] = MappingProxyType({"terminal": ("process",)})
MCP_PREFIX = "mcp__"


class ToolSwitches(NamedTuple):
    disabled: frozenset[str] = frozenset()  # off in every mode
    by_mode: Mapping[str, frozenset[str]] = MappingProxyType({})  # off in one mode, besides

    def off(self, mode: str) -> frozenset[str]:
        """The tools off in ``mode``, with what each takes with it (``COMPANIONS``)."""
        named = self.disabled | self.by_mode.get(mode, frozenset())
        return named.union(*(COMPANIONS.get(name, ()) for name in named))


def read_tools(section: dict[str, Any]) -> ToolSwitches:
    disabled = _names(section, "[tools] disabled")
    modes = table(section, "modes", "[tools.modes]")
    if unknown := sorted(set(modes) - set(MODES)):
        raise ConfigError(
            f"config.toml: [tools.modes] has no mode {', '.join(unknown)}; "
            f"the modes are {', '.join(MODES)}"
        )
    by_mode = {
        mode: _names(table(modes, mode, f"[tools.modes.{mode}]"), f"[tools.modes.{mode}] disabled")
        for mode in modes
    }
    return ToolSwitches(disabled, MappingProxyType(by_mode))


def _names(section: dict[str, Any], label: str) -> frozenset[str]:
    try:
        names = strings(section, "disabled")
    except ConfigError:
        raise ConfigError(f"config.toml: {label} must be a list of tool names") from None
    if unknown := [n for n in names if n not in BUILT_IN and not n.startswith(MCP_PREFIX)]:
        raise ConfigError(
            f"config.toml: {label} names no tool {', '.join(map(repr, unknown))}; "
            f"the tools are {', '.join(BUILT_IN)} and mcp__<server>__<tool>"
        )
    return frozenset(names)
