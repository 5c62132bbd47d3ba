"""``switch_mode``: leave plan mode, with the user choosing the mode to continue in."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from agent_core.approval.permissions import ApprovalCancelled, ApprovalRequest, Option
from agent_core.errors import ToolError
from agent_core.events import TextContent, ToolKind
from agent_core.modes import MODE_NAMES
from agent_core.tools.arguments import Arguments
from agent_core.tools.base import ToolContext


class SwitchModeArguments(Arguments):
    plan: str = Field(
        min_length=1, description="The plan you want to carry out, for the user to approve."
    )


class SwitchMode:
    name = "switch_mode"
    kind: ToolKind = "switch_mode"
    read_only = False
    arguments = SwitchModeArguments
    description = (
        "In plan mode, present your plan and ask to start working. The user picks the mode to "
        "continue in, or keeps you planning."
    )

    def title(self, arguments: Mapping[str, Any]) -> str:
        return "Ready to code?"

    async def run(self, arguments: SwitchModeArguments, context: ToolContext) -> str:
        if context.permissions.mode != "plan":
            raise ToolError(
                f"Not in plan mode (the mode is {context.permissions.mode}); just carry on."
            )
        options = tuple(
            Option(mode, f"Yes, {MODE_NAMES[mode][0].lower()}", "allow_once")
            for mode in ("accept-edits", "ask", "full-access")
        )
        options += (Option("plan", "No, keep planning", "reject_once"),)
        request = ApprovalRequest(
            context.call_id, self.title({}), "switch_mode", options, (TextContent(arguments.plan),)
        )
        outcome = await context.permissions.approver.request(request)
        if outcome.decision == "cancelled":
            raise ApprovalCancelled
        chosen = outcome.option_id
        if not outcome.allowed or chosen not in ("accept-edits", "ask", "full-access"):
            if outcome.reason:  # not a choice: nobody could approve it (``heron exec``)
                raise ToolError(f"Not approved: {outcome.reason}.")
            raise ToolError("The user wants to keep planning. Refine the plan and ask again.")
        await context.permissions.set_mode(chosen)
        return f"Plan approved. The mode is now {chosen}: go ahead."
