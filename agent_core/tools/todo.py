"""``todo``: the agent's plan, shown in the editor as it changes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from agent_core.events import PlanEntry, PlanUpdated, ToolKind
from agent_core.tools.arguments import Arguments
from agent_core.tools.base import ToolContext


class TodoItem(Arguments):
    content: str = Field(min_length=1)
    status: Literal["pending", "in_progress", "completed"] = "pending"
    priority: Literal["high", "medium", "low"] = "medium"


class TodoArguments(Arguments):
    items: list[TodoItem] = Field(description="The complete plan: every item, every time.")


class Todo:
    name = "todo"
    kind: ToolKind = "think"
    read_only = True
    arguments = TodoArguments
    description = (
        "Write down your plan for a multi-step task and keep it current: send the whole list "
        "each time, marking one item in_progress while you work on it."
    )

    def title(self, arguments: Mapping[str, Any]) -> str:
        return "Update the plan"

    async def run(self, arguments: TodoArguments, context: ToolContext) -> str:
        entries = tuple(PlanEntry(i.content, i.status, i.priority) for i in arguments.items)
        await context.report(PlanUpdated(entries))
        done = sum(i.status == "completed" for i in arguments.items)
        return f"Plan updated: {done} of {len(entries)} done."
