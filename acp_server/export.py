"""Session export: ``heron export`` in a terminal, ``/export`` in the editor.

``heron export SESSION`` reads a stored session from ``$HERON_HOME/sessions.db`` (by its id, or
a start of one that names a single session) and writes it to standard output or ``--out``.
An unknown or ambiguous session is a usage error (exit 2), as argparse makes an unknown format.

``/export`` writes the current session, as stored when the command runs (the turns before
it), into the workspace. It is a reviewed change like any write: shown as a tool call with
its diff, it passes the approval gate as an edit does (``tools.edits.propose_and_write``: it
asks in ask mode, applies in accept-edits, is refused in plan mode), and it is written through
the editor when the editor writes files. A path outside the workspace is refused.
"""

from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from acp_server.bridge.export import default_name, export_text
from agent_core.errors import HeronError, SessionNotFound, StorageError

if TYPE_CHECKING:
    from acp_server.session import Session
    from acp_server.session_parts import SessionParts
    from agent_core.sessions.resilient import ResilientStore
    from agent_core.sessions.sqlite import SqliteSessionStore
    from agent_core.sessions.store import StoredSession
    from agent_core.tools.base import ToolContext

USAGE_ERROR = 2
SHOWN_MATCHES = 5  # sessions named when a start of an id names several


class ExportRefused(HeronError):
    """What the user asked for cannot be exported; the message says why."""


# -- heron export --------------------------------------------------------------------------


def run_export(session: str, form: str, out: str | None, terminal: TextIO) -> int:
    """``heron export``: 0 once written, 2 for a session it cannot name, 1 when the history or
    the file cannot be read or written."""
    import anyio

    from agent_core.config import heron_home
    from agent_core.files.atomic import write_atomically
    from agent_core.sessions.sqlite import SqliteSessionStore

    database = heron_home() / "sessions.db"
    if not database.is_file():
        return _failed(f"no session {session!r}: nothing is stored yet ({database})", USAGE_ERROR)
    store = SqliteSessionStore(database)
    try:
        stored = anyio.run(_find, store, session)
    except ExportRefused as exc:
        return _failed(str(exc), USAGE_ERROR)
    except StorageError as exc:
        return _failed(str(exc), 1)
    text = export_text(stored, form)
    if out is None:
        try:
            terminal.write(text)
            terminal.flush()
        except BrokenPipeError:  # a reader that stopped early (`| head`) is no failure
            os.dup2(os.open(os.devnull, os.O_WRONLY), terminal.fileno())  # nothing more to say
        return 0
    try:
        write_atomically(Path(out), text.encode())
    except OSError as exc:
        return _failed(f"cannot write {out}: {exc.strerror or exc}", 1)
    sys.stderr.write(f"Wrote {stored.record.session_id} as {form} to {out}\n")
    return 0


async def _find(store: SqliteSessionStore, wanted: str) -> StoredSession:
    """The session ``wanted`` names: its id, or the start of one id only."""
    try:
        try:
            return await store.load(wanted)
        except SessionNotFound:
            ids = await store.ids_starting(wanted, SHOWN_MATCHES + 1) if wanted else []
        if not ids:
            raise ExportRefused(f"no session {wanted!r} (`heron export` takes an id or its start)")
        if len(ids) > 1:
            more = " ..." if len(ids) > SHOWN_MATCHES else ""
            listed = ", ".join(ids[:SHOWN_MATCHES]) + more
            raise ExportRefused(f"{wanted!r} starts more than one session id: {listed}")
        return await store.load(ids[0])
    finally:
        await store.close()


def _failed(reason: str, code: int) -> int:
    sys.stderr.write(f"heron export: {reason}\n")
    return code


# -- /export -------------------------------------------------------------------------------


class EditorExport:
    """One ``/export``: the stored session translated, shown, asked about, written."""

    def __init__(self, session: Session, parts: SessionParts, store: ResilientStore) -> None:
        self.session, self.parts, self.store = session, parts, store

    async def run(self, form: str, raw_path: str | None) -> str:
        """What the user is told: where the session was written, or why it was not."""
        import anyio

        from agent_core.errors import ToolError
        from agent_core.tools.base import ToolContext

        parts = self.parts
        call = ToolContext(
            f"export-{uuid.uuid4().hex[:12]}",
            parts.workspace,
            parts.permissions,
            self.session.report,
            parts.runner,
            parts.sandbox,
        )
        path, inside = call.path(raw_path or default_name(self.session.id, form))
        if not inside:
            roots = ", ".join(str(r) for r in parts.workspace.roots)
            return f"Not exported: {path} is outside the workspace ({roots})."
        try:
            stored = await self.store.load(self.session.id)
        except (SessionNotFound, StorageError) as exc:
            return f"Not exported: the session's history cannot be read ({exc})."
        text = await anyio.to_thread.run_sync(export_text, stored, form)  # 20,000 messages: ~0.6 s
        try:
            exists = await parts.workspace.exists(path)
            old = await parts.workspace.read_text(path) if exists else None
        except ToolError:
            old = None  # not readable as text: the diff shows the export as a new file
        try:
            await self._write(call, path, old, text)
        except ToolError as exc:
            return f"Not exported: {exc}"
        size = f"{len(text.encode()) / 1024:,.1f} KB"
        return f"Exported this session as {form} to `{call.shown(path)}` ({size})."

    async def _write(self, call: ToolContext, path: Path, old: str | None, text: str) -> None:
        """Shown as a tool call, through the approval gate as an edit, then written; raises
        ``ToolError`` with the refusal."""
        from agent_core.approval.permissions import ApprovalCancelled
        from agent_core.errors import ToolError
        from agent_core.events import TextContent, ToolCallStarted, ToolCallUpdated
        from agent_core.tools.edits import propose_and_write

        shown, report = call.shown(path), call.report
        title = f"Export this session to {shown}"
        await report(ToolCallStarted(call.call_id, "export", title, "edit", {"path": shown}))
        said, status = f"Wrote {shown}.", "completed"
        try:
            await propose_and_write(call, title, path, old, text, 1)
        except ApprovalCancelled:
            said, status = "the question was cancelled.", "failed"
        except ToolError as exc:
            said, status = str(exc), "failed"
        # What the call shows last, and is replayed: a line, not the whole export again.
        last = (TextContent(said),)
        await report(ToolCallUpdated(call.call_id, status=status, content=last, output=said))
        if status == "failed":
            raise ToolError(said)
