"""One session's tools: Heron's own, the MCP servers', ``execute_code`` over the ones a script
may call (the file, search and web tools, foreground commands, read-only MCP tools), and
``delegate``, whose subagents get some of the others; the user's hooks around each; each a
live view without the tools switched off now (``[tools]``, in the session's mode). Part of the
composition root (``wiring.py``): it builds, it does not behave."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, NamedTuple

from agent_core.config import Settings

if TYPE_CHECKING:
    from agent_core.codeexec.runner import ScriptHost
    from agent_core.execution.runner import ContainerRunner
    from agent_core.hooks.runner import Hooks
    from agent_core.mcp.pool import McpServers
    from agent_core.memory.notes import Memory
    from agent_core.messages import ToolCallPart, ToolResultPart
    from agent_core.skills.catalog import Catalog
    from agent_core.tools.base import Tool, ToolContext


class ToolSources(NamedTuple):
    """What a session's tools are made from."""

    settings: Settings
    mcp: McpServers
    environment: Mapping[str, str]  # what commands and scripts see
    container: ContainerRunner | None  # where scripts run, when not here
    memory: Memory | None  # None: memory is off
    skills: Callable[[], Catalog]  # the skills on disk now
    model_spec: Callable[[], str]  # the session's model as it is now
    subagent_prompt: Callable[[], str]
    hooks: Hooks | None
    switched_off: Callable[[], frozenset[str]]  # the tools off now


class RenewableTools(Mapping[str, "Tool"]):
    """The agent's tools, made again when the session gains MCP servers (``config.toml``
    edited while it runs): the agent and its tool runner hold this view, never a copy."""

    def __init__(self, tools: Mapping[str, Tool]) -> None:
        self._tools = tools

    def renew(self, tools: Mapping[str, Tool]) -> None:
        self._tools = tools

    def __getitem__(self, name: str) -> Tool:
        return self._tools[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)


def session_toolset(sources: ToolSources) -> Mapping[str, Tool]:
    from agent_core.loop.execution import execute
    from agent_core.tools import default_toolset
    from agent_core.tools.execute_code import SCRIPTABLE, ExecuteCode
    from agent_core.tools.switched import SwitchedTools

    settings, mcp = sources.settings, sources.mcp
    tools = {**default_toolset(settings.web), **mcp.tools()}
    scriptable = SwitchedTools(
        {name: tools[name] for name in SCRIPTABLE} | mcp.tools(read_only=True),
        sources.switched_off,
    )

    async def run_tool(call: ToolCallPart, context: ToolContext) -> ToolResultPart:
        return await execute(call, scriptable, context, images=False)

    tools["execute_code"] = ExecuteCode(
        settings.code_execution, sources.environment, scriptable, run_tool, _script_host(sources)
    )
    if sources.memory is not None:
        from agent_core.tools.memory import MemoryTool

        tools["memory"] = MemoryTool(sources.memory)
    if settings.skills.enabled:
        from agent_core.tools.skill import SkillTool

        tools["skill"] = SkillTool(sources.skills, settings.skills.max_chars)
    if settings.delegation.max_depth > 0:
        tools["delegate"] = _delegate(sources, SwitchedTools(dict(tools), sources.switched_off))
    if sources.hooks is not None:
        from agent_core.hooks.tools import hooked

        tools = hooked(tools, sources.hooks)
    return SwitchedTools(tools, sources.switched_off)


def _script_host(sources: ToolSources) -> ScriptHost | None:
    """Where execute_code's scripts run when not here: the session's container."""
    if sources.container is None:
        return None
    from agent_core.codeexec.runner import ScriptHost

    return ScriptHost(sources.container, sources.container.scripts)


def _delegate(sources: ToolSources, tools: Mapping[str, Tool]) -> Tool:
    from agent_core.delegation.tool import Delegate, Subagents
    from agent_core.models.registry import create_model

    def spec(requested: str | None) -> str:
        return requested or sources.model_spec()

    return Delegate(
        Subagents(
            tools,
            lambda requested: create_model(spec(requested), sources.settings),
            spec,
            sources.subagent_prompt,
            sources.settings.delegation,
        )
    )
