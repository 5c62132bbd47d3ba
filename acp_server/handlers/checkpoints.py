"""``/checkpoints``, ``/undo`` and ``/restore <n>``: a session's checkpoints, listed and restored.

A restore is a reviewed change: it shows as one tool call with the list of files and a diff per
text file, and waits for one permission answer, whatever the mode (the user asked for it, but
it may overwrite work). Nothing changes until the user says Restore.
"""

from __future__ import annotations

import time
import uuid

import anyio

from acp_server.bridge.updates import to_session_update
from acp_server.handlers.state import Session
from agent_core.approvals import ApprovalRequest, Option
from agent_core.checkpoints.plan import RestorePlan
from agent_core.checkpoints.restore import Applied, apply, preview
from agent_core.checkpoints.session import CheckpointError
from agent_core.events import Event, TextContent, ToolCallStarted, ToolCallUpdated

ANSWERS = (
    Option("restore", "Restore these files", "allow_once"),
    Option("cancel", "Cancel", "reject_once"),
)
SHOWN_PATHS = 10


async def list_checkpoints(session: Session) -> str:
    try:
        listed = await session.parts.checkpoints.listing()
    except CheckpointError as exc:
        return str(exc)
    if not listed:
        return "No checkpoints yet: they are taken before a turn's first change."
    lines = ["Checkpoints (newest last; `/restore <n>` goes back to before that turn):"]
    for c in listed:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(c.time))
        changed = "still running or stopped" if c.files_changed is None else f"{c.files_changed}"
        lines.append(f"{c.number}. {when} · “{c.prompt or '(no text)'}” · files changed: {changed}")
    return "\n".join(lines)


async def restore(session: Session, argument: str, *, undo: bool) -> str:
    """Plan, ask, apply; the reply says what happened."""
    number: int | None = None
    if not undo:
        if not argument.strip().isdigit():
            return "Usage: /restore <n>, with n from /checkpoints."
        number = int(argument)
    checkpoints = session.parts.checkpoints
    try:
        plan = await checkpoints.plan(number)
    except CheckpointError as exc:
        return f"Nothing was changed. {exc}"
    n = plan.checkpoint
    if not plan.changes:
        await checkpoints.forget_from(n)
        unchanged = f"the files turn {n} changed are as they were before it"
        return f"Nothing to restore: {unchanged}.{_kept(plan)}"
    call_id = f"restore-{uuid.uuid4().hex[:12]}"
    title = f"Restore the workspace to checkpoint {n}" + (" (undo the last turn)" if undo else "")
    root = session.parts.workspace.roots[0]
    try:
        contents = await checkpoints.contents(plan)
    except CheckpointError as exc:
        return f"Nothing was changed. {exc}"
    shown = await preview(plan, contents, root)
    await _show(session, ToolCallStarted(call_id, "restore", title, "edit"))
    await _show(session, ToolCallUpdated(call_id, status="pending", content=shown))
    request = ApprovalRequest(call_id, title, "edit", ANSWERS, shown)
    outcome = await session.parts.permissions.approver.request(request)
    if not outcome.allowed:
        await _show(session, ToolCallUpdated(call_id, status="failed", output="Not restored."))
        return "Nothing was changed."
    applied, summary = Applied((), ()), ""
    with anyio.CancelScope(shield=True):  # once approved, never left half done by a cancel
        await _show(session, ToolCallUpdated(call_id, status="in_progress"))
        applied = await apply(plan, contents, session.parts.workspace)
        summary = _summary(plan, applied)
        status = "failed" if applied.failed else "completed"
        shown = (TextContent(summary),)
        await _show(session, ToolCallUpdated(call_id, status=status, content=shown))
        if not applied.failed:
            await checkpoints.forget_from(n)
        if applied.done:
            (await session.ready()).remember(
                f"(The user restored the workspace to checkpoint {n}, undoing what turn {n} "
                f"and any later turn changed. {summary} Read files again before editing them.)"
            )
    return summary


def _summary(plan: RestorePlan, applied: Applied) -> str:
    actions = {c.path: c.action for c in plan.changes}
    said: list[str] = []
    for verb, action in (("Restored", "restore"), ("Recreated", "recreate"), ("Deleted", "delete")):
        paths = [p for p in applied.done if actions[p] == action]
        if paths:
            shown = ", ".join(paths[:SHOWN_PATHS]) + (" ..." if len(paths) > SHOWN_PATHS else "")
            said.append(f"{verb} {len(paths)}: {shown}.")
    said += [f"Could not restore {path}: {why}." for path, why in applied.failed]
    return " ".join(said) + _kept(plan)


def _kept(plan: RestorePlan) -> str:
    return "".join(f" Kept {k.path}: {k.reason}." for k in plan.kept)


async def _show(session: Session, event: Event) -> None:
    if (update := to_session_update(event)) is not None:
        await session.parts.send(update)
