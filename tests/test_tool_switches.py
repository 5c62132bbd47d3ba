"""``[tools]`` read from config.toml, the guidance table and the live view of a session's tools
(``agent_core.tool_switches``, ``context.prompt``, ``tools.switched``)."""

from __future__ import annotations

import re
import tomllib
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from agent_core.context.prompt import TOOL_GUIDANCE, Environment, build_system_prompt
from agent_core.errors import ConfigError
from agent_core.tool_switches import BUILT_IN, ToolSwitches, read_tools
from agent_core.tools import default_toolset
from agent_core.tools.switched import SwitchedTools


def read(text: str) -> ToolSwitches:
    return read_tools(tomllib.loads(text).get("tools", {}))


def test_tools_are_switched_off_everywhere_and_per_mode() -> None:
    switches = read(
        '[tools]\ndisabled = ["web_fetch", "mcp__db__drop"]\n'
        '[tools.modes.plan]\ndisabled = ["terminal"]\n'
    )
    assert switches.off("ask") == {"web_fetch", "mcp__db__drop"}
    assert switches.off("plan") == {"web_fetch", "mcp__db__drop", "terminal", "process"}
    assert read("").off("plan") == frozenset()


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('[tools]\ndisabled = ["exec_code"]', "names no tool 'exec_code'; the tools are read_file"),
        ('[tools]\ndisabled = "terminal"', "[tools] disabled must be a list of tool names"),
        ('[tools.modes.review]\ndisabled = ["terminal"]', "no mode review; the modes are ask"),
        ('[tools.modes.plan]\ndisabled = ["grep"]', "[tools.modes.plan] disabled names no tool"),
        ("[tools]\nmodes = 1", "[tools.modes] must be a table"),
    ],
)
def test_a_wrong_tools_section_says_what_is_known(text: str, said: str) -> None:
    with pytest.raises(ConfigError) as raised:
        read(text)
    assert said in str(raised.value)


def test_every_tool_heron_offers_can_be_switched_off() -> None:
    wired = {"execute_code", "memory", "skill", "delegate"}  # added by acp_server.wiring
    assert set(BUILT_IN) == set(default_toolset()) | wired


def prompt(switched_off: frozenset[str], tmp_path: Path, **options: Any) -> str:
    environment = Environment(tmp_path, (), "/bin/sh", date(2026, 1, 1))
    return build_system_prompt(
        environment, "anthropic:x", switched_off=switched_off, **options
    ).text


@pytest.mark.parametrize("subagent", [False, True])
def test_a_guidance_line_goes_with_any_tool_it_names(tmp_path: Path, subagent: bool) -> None:
    every = prompt(frozenset(), tmp_path, subagent=subagent)
    assert "find_files and search" in every and "Paths are relative" in every
    fewer = prompt(frozenset({"search", "execute_code"}), tmp_path, subagent=subagent)
    assert "find_files and search" not in fewer and "execute_code" not in fewer
    assert "Paths are relative" in fewer


def test_each_guidance_line_names_exactly_the_tools_it_needs() -> None:
    for needs, line in TOOL_GUIDANCE:
        named = {tool for tool in BUILT_IN if re.search(rf"\b{tool}\b", line)}
        assert named == needs, line


def test_the_view_follows_what_is_off_now() -> None:
    tools = default_toolset()
    off: set[str] = {"terminal", "process"}
    view = SwitchedTools(tools, lambda: frozenset(off))
    assert "terminal" not in view and view.get("terminal") is None
    assert len(view) == len(tools) - 2 and "process" not in set(view)
    off.clear()
    assert view["terminal"] is tools["terminal"] and len(view) == len(tools)
