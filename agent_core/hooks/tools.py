"""A tool with the user's hooks around it: ``before_tool`` hooks may refuse the call (before
any approval question: a refused call asks the user nothing), ``after_edit`` hooks see the
files it changed, ``after_tool`` hooks add to its result. The loop runs a hooked tool as any
other; with no hook configured a call costs one look at the settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from msgspec.structs import replace

from agent_core.errors import ToolError
from agent_core.events import ToolKind
from agent_core.hooks import payload
from agent_core.hooks.edits import after_edit
from agent_core.hooks.runner import Hooks
from agent_core.tools.base import ArgumentModel, ChangeLog, Tool, ToolContext, ToolOutput

if TYPE_CHECKING:
    from pydantic import BaseModel


def hooked(tools: Mapping[str, Tool], hooks: Hooks) -> dict[str, Tool]:
    """Every tool of ``tools`` with the hooks around it."""
    return {name: HookedTool(tool, hooks) for name, tool in tools.items()}


class HookedTool:
    def __init__(self, tool: Tool, hooks: Hooks) -> None:
        self._tool, self._hooks = tool, hooks

    @property
    def name(self) -> str:
        return self._tool.name

    @property
    def description(self) -> str:
        return self._tool.description

    @property
    def kind(self) -> ToolKind:
        return self._tool.kind

    @property
    def read_only(self) -> bool:
        return self._tool.read_only

    @property
    def arguments(self) -> type[BaseModel] | ArgumentModel:
        return self._tool.arguments

    def title(self, arguments: Mapping[str, Any]) -> str:
        return self._tool.title(arguments)

    async def run(self, arguments: Any, context: ToolContext) -> str | ToolOutput:
        name, plain = self.name, _plain(arguments)
        await self._before(name, plain)
        changes = ChangeLog()
        try:
            result = await self._tool.run(arguments, replace(context, changes=changes))
        except ToolError as exc:
            added = await self._after(name, plain, str(exc), error=True)
            if not added:
                raise
            raise ToolError(f"{exc}{added}") from exc
        added = await after_edit(self._hooks, name, plain, changes, context)
        text = result if isinstance(result, str) else result.text
        added += await self._after(name, plain, text, error=False)
        if not added:
            return result
        return f"{result}{added}" if isinstance(result, str) else replace(result, text=text + added)

    async def _before(self, name: str, arguments: dict[str, Any]) -> None:
        for spec in self._hooks.of("before_tool", name):
            outcome = await self._hooks.run(spec, payload.tool_call(name, arguments))
            if outcome.refused:
                why = outcome.reason or "no reason given"
                raise ToolError(f"Refused by the before_tool hook {spec.name!r}: {why}")

    async def _after(self, name: str, arguments: dict[str, Any], text: str, *, error: bool) -> str:
        """What the after_tool hooks printed (those that succeeded), for the result."""
        added = ""
        for spec in self._hooks.of("after_tool", name):
            details = payload.tool_result(name, arguments, text, error)
            outcome = await self._hooks.run(spec, details)
            if outcome.succeeded and outcome.output:
                added += f"\n\n[after_tool hook {spec.name!r}]\n{outcome.output}"
        return added


def _plain(arguments: Any) -> dict[str, Any]:
    """A call's arguments as JSON-ready data (a pydantic model's dump, or the dict itself)."""
    dump = getattr(arguments, "model_dump", None)
    if callable(dump):
        return cast(dict[str, Any], dump(mode="json"))
    return cast(dict[str, Any], arguments) if isinstance(arguments, dict) else {}
