"""``memory``: what the agent keeps for later sessions (``agent_core.memory.notes``).

A change is shown as a diff and goes through the approval policy like an edit, as a
``MemoryWrite``: memory outlives the session, so it asks in ask, plan and accept-edits modes
unless the user always allows it here (never in plan mode); it is written only once allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from agent_core.approval.gate import admit
from agent_core.approval.permissions import ApprovalRequest
from agent_core.events import DiffContent, ToolCallUpdated, ToolKind
from agent_core.memory.notes import FILES, Memory
from agent_core.safety.policy import MemoryWrite
from agent_core.tools.arguments import Arguments
from agent_core.tools.base import ToolContext


class MemoryArguments(Arguments):
    file: Literal["notes", "user"] = Field(
        description="notes: what you learned about this work (commands, quirks, decisions); "
        "user: what you learned about the user (preferences, how they like to work)."
    )
    action: Literal["add", "replace", "remove"]
    text: str = Field(default="", description="The entry to add, or the replacement: one line.")
    match: str = Field(
        default="", description="For replace and remove: a part of the one entry meant."
    )


QUESTIONS = {  # the permission question's title
    "add": "Remember in {}?",
    "replace": "Change an entry of {}?",
    "remove": "Forget an entry of {}?",
}


class MemoryTool:
    name = "memory"
    kind: ToolKind = "edit"
    read_only = False
    arguments = MemoryArguments
    description = (
        "Remember something for later sessions, or correct what you remembered. Keep entries "
        "short and durable: a preference the user stated, a command that builds or tests this "
        "project, a decision and its reason; not what you are doing right now. Later sessions "
        "see these files in their system prompt; this session does not see its own changes. "
        "The user sees each change as a diff and is usually asked to approve it."
    )

    def __init__(self, memory: Memory) -> None:
        self._memory = memory

    def title(self, arguments: Mapping[str, Any]) -> str:
        action = str(arguments.get("action") or "update").capitalize()
        return f"{action} {arguments.get('file', 'memory')} memory"

    async def run(self, arguments: MemoryArguments, context: ToolContext) -> str:
        kind, action = arguments.file, arguments.action
        change = self._memory.propose(kind, action, arguments.text, arguments.match)
        diff = DiffContent(str(change.path), change.old or None, change.new)
        await context.report(ToolCallUpdated(context.call_id, content=(diff,)))
        title = QUESTIONS[action].format(FILES[kind])
        request = ApprovalRequest(context.call_id, title, "edit", content=(diff,))
        await admit(context, MemoryWrite(FILES[kind]), request)
        self._memory.write(change)
        entries = change.new.count("\n")
        return f"{FILES[kind]} now has {entries} entr{'y' if entries == 1 else 'ies'}."
