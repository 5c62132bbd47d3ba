"""After an edit: the ``after_edit`` hooks run over the files a call changed (a formatter),
and whatever they made of a file becomes what everyone sees next: the editor's buffer takes
the file as the hook left it on disk (written back through the ``Workspace`` port, so an editor
that holds the file open is not left with the text before the hook), the stale-edit guard
records it as seen, the hook's tool call shows the change as a diff, and the model reads it in
the call's result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_core.events import DiffContent, TextContent, ToolCallUpdated
from agent_core.hooks import payload
from agent_core.hooks.runner import Hooks
from agent_core.safety.safe_open import UnsafeFile, read_safely
from agent_core.tools.base import ChangeLog, ToolContext

MAX_FILE_BYTES = 8 * 1024 * 1024
DIFF_CHARS = 6_000


async def after_edit(
    hooks: Hooks, tool: str, arguments: dict[str, Any], changes: ChangeLog, context: ToolContext
) -> str:
    """Run the after_edit hooks for the files ``changes`` holds; what the model is told of
    what they changed ("" when nothing)."""
    specs = hooks.of("after_edit", tool)
    if not specs or not changes.written:
        return ""
    said = ""
    for spec in specs:
        paths = tuple(changes.written)
        details = payload.edited(tool, arguments, paths)
        outcome = await hooks.run(spec, details, tuple(str(p) for p in paths))
        for path in paths:
            written = changes.written[path]
            now = await _on_disk(path, context)
            if now is None or now == written:
                continue
            await context.workspace.write_text(path, now)  # the editor's buffer follows
            context.files.saw(path, now)
            changes.wrote(path, now)
            shown = (
                TextContent(f"Changed {context.shown(path)}"),
                DiffContent(str(path), written, now),
            )
            await hooks.report(ToolCallUpdated(outcome.call_id, content=shown))
            said += _told(spec.name, context.shown(path), written, now)
        if outcome.problem:
            said += f"\n\nThe after_edit hook {spec.name!r} failed: {outcome.problem}."
    return said


async def _on_disk(path: Path, context: ToolContext) -> str | None:
    """The file as the hook left it, read as Heron reads what the workspace supplies; None
    when it is gone, unreadable or too large to take back."""
    try:
        read = await read_safely(path, context.workspace.roots, MAX_FILE_BYTES)
        return None if read.truncated else read.data.decode("utf-8")
    except (OSError, UnsafeFile, UnicodeDecodeError):
        return None


def _told(name: str, shown: str, before: str, after: str) -> str:
    import difflib  # here: only a hook that changed a file needs it (~0.2 MB kept otherwise)

    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), shown, shown
    )
    diff = "".join(lines)
    if len(diff) > DIFF_CHARS:
        diff = f"{diff[:DIFF_CHARS]}\n… (diff cut; read the file for the rest)"
    return (
        f"\n\nThe after_edit hook {name!r} changed {shown} after your edit; "
        f"the file is now as follows from this diff:\n{diff}"
    )
