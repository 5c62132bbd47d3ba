"""A session's checkpoints, listed and restored (``/checkpoints``, ``/undo``, ``/restore <n>``).

A restore is a reviewed change: it shows as one tool call with the list of files and a diff per
text file, and waits for one permission answer, whatever the mode (the user asked for it, but
it may overwrite work). Nothing changes until the user says Restore.
"""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING

import anyio
from msgspec import Struct

from acp_server.bridge.updates import to_session_update
from agent_core.approval.permissions import ApprovalRequest, Approver, Option
from agent_core.checkpoints.plan import RestorePlan
from agent_core.checkpoints.restore import Applied, apply, preview
from agent_core.checkpoints.session import CheckpointError, Checkpoints
from agent_core.events import Event, TextContent, ToolCallStarted, ToolCallUpdated
from agent_core.ports.workspace import Workspace

if TYPE_CHECKING:
    from acp_server.session import Session

ANSWERS = (
    Option("restore", "Restore these files", "allow_once"),
    Option("cancel", "Cancel", "reject_once"),
)
SHOWN_PATHS = 10


async def list_checkpoints(checkpoints: Checkpoints) -> str:
    try:
        listed = await checkpoints.listing()
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


class Restored(Struct, frozen=True):
    """How a restore went: what to tell the user, whether they declined it (nothing changed),
    and what the model should be told (None: no file changed)."""

    text: str
    declined: bool = False
    note: str | None = None


class Restore:
    """One restore: planned, shown, asked, applied."""

    def __init__(
        self, checkpoints: Checkpoints, workspace: Workspace, approver: Approver, session: Session
    ) -> None:
        self.checkpoints, self.workspace = checkpoints, workspace
        self.approver, self.session = approver, session

    async def run(self, number: int | None) -> Restored:
        """Back to before checkpoint ``number`` (None: undo the last turn)."""
        undo, checkpoints = number is None, self.checkpoints
        try:
            plan = await checkpoints.plan(number)
        except CheckpointError as exc:
            return Restored(f"Nothing was changed. {exc}")
        n = plan.checkpoint
        if not plan.changes:
            await checkpoints.forget_from(n)
            unchanged = f"the files turn {n} changed are as they were before it"
            return Restored(f"Nothing to restore: {unchanged}.{_kept(plan)}")
        call_id = f"restore-{uuid.uuid4().hex[:12]}"
        title = f"Restore the workspace to checkpoint {n}" + (
            " (undo the last turn)" if undo else ""
        )
        root = self.workspace.roots[0]
        try:
            contents = await checkpoints.contents(plan)
        except CheckpointError as exc:
            return Restored(f"Nothing was changed. {exc}")
        shown = await preview(plan, contents, root)
        await self._show(ToolCallStarted(call_id, "restore", title, "edit"))
        await self._show(ToolCallUpdated(call_id, status="pending", content=shown))
        request = ApprovalRequest(call_id, title, "edit", ANSWERS, shown)
        outcome = await self.approver.request(request)
        if not outcome.allowed:
            await self._show(ToolCallUpdated(call_id, status="failed", output="Not restored."))
            return Restored("Nothing was changed.", declined=True)
        applied, summary, note = Applied((), ()), "", None
        with anyio.CancelScope(shield=True):  # once approved, never left half done by a cancel
            await self._show(ToolCallUpdated(call_id, status="in_progress"))
            applied = await apply(plan, contents, self.workspace)
            summary = _summary(plan, applied)
            status = "failed" if applied.failed else "completed"
            shown = (TextContent(summary),)
            await self._show(ToolCallUpdated(call_id, status=status, content=shown))
            if not applied.failed:
                await checkpoints.forget_from(n)
            if applied.done:
                note = (
                    f"(The user restored the workspace to checkpoint {n}, undoing what turn {n} "
                    f"and any later turn changed. {summary} Read files again before editing them.)"
                )
        return Restored(summary, note=note)

    async def _show(self, event: Event) -> None:
        if (update := to_session_update(event)) is not None:
            await self.session.show(update)


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
