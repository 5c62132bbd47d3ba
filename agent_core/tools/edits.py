"""What file-changing tools share: the stale-read guard, the diff preview, approval, the write."""

from __future__ import annotations

from pathlib import Path

from agent_core.approval.gate import admit
from agent_core.approval.permissions import ApprovalRequest
from agent_core.errors import ToolError
from agent_core.events import DiffContent, Location, TextContent, ToolCallUpdated
from agent_core.safety.paths import hard_linked, protected_reason
from agent_core.safety.policy import Edit
from agent_core.tools.base import ToolContext


async def current_text(context: ToolContext, path: Path, *, must_exist: bool) -> str | None:
    """The file as the editor has it now, after checking the agent has seen this version."""
    if not await context.workspace.exists(path):
        if must_exist:
            raise ToolError(f"{context.shown(path)} does not exist; use write_file to create it.")
        return None
    text = await context.workspace.read_text(path)
    if problem := context.files.stale(path, text):
        raise ToolError(problem)
    return text


async def propose_and_write(
    context: ToolContext, title: str, path: Path, old: str | None, new: str, line: int
) -> str:
    """Show the diff on the tool call, ask as the mode requires, then write through the editor;
    what the file's diagnostics say of the change, for the result ("" when nothing covers it)."""
    inside = context.path(str(path))[1]
    diff = DiffContent(str(path), old, new)
    location = Location(str(path), line)
    await context.report(ToolCallUpdated(context.call_id, content=(diff,), locations=(location,)))
    protected = protected_reason(path, context.workspace.roots, Path.home())
    action = Edit(path, inside, protected, hard_linked(path))
    request = ApprovalRequest(
        context.call_id, title, "edit", content=(diff,), locations=(location,)
    )
    await admit(context, action, request)
    checks = context.diagnostics
    before = None if checks is None or old is None else await checks.source.findings(path, old)
    await context.workspace.write_text(path, new)
    context.files.saw(path, new)
    if context.changes is not None:
        context.changes.wrote(path, new)
    if checks is None:
        return ""
    said = checks.after_edit(context.shown(path), before, await checks.source.findings(path, new))
    if said:
        shown = (diff, TextContent(said))
        await context.report(ToolCallUpdated(context.call_id, content=shown))
    return said


def with_diagnostics(result: str, said: str) -> str:
    """A file-changing tool's result, with what the diagnostics said of the change."""
    return f"{result}\n{said}" if said else result


def first_changed_line(old: str, new: str) -> int:
    for number, (a, b) in enumerate(zip(old.splitlines(), new.splitlines(), strict=False), 1):
        if a != b:
            return number
    return min(len(old.splitlines()), len(new.splitlines())) + 1
