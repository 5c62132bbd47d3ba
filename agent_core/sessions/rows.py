"""Reading a stored session from the SQLite file: the one home of the queries, for the store
(``sqlite``) and for a read that cannot wait for it (``read_at_once``).

``read_at_once`` serves a ``session/load`` sent the moment ``initialize`` is answered, before
the server and its store have loaded: it opens the file without creating, moving or
migrating anything, and gives up (None) on anything but a readable file at the current schema
that holds the session. The store then meets the file as it is and says what it finds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_core.errors import SessionNotFound
from agent_core.sessions.schema import CURRENT

if TYPE_CHECKING:
    import sqlite3

    from agent_core.sessions.store import SessionRecord, StoredSession

SESSION_COLUMNS = (  # in the order record_of reads them
    "id, cwd, additional_directories, title, mode, created_at, updated_at, model, thought_level"
)


def record_of(row: Any) -> SessionRecord:
    """A ``sessions`` row (``SESSION_COLUMNS``) as a record."""
    from agent_core.sessions.store import SessionRecord

    session_id, cwd, extra, title, mode, _created, updated, model, thought_level = row
    directories = tuple(Path(p) for p in json.loads(extra))
    return SessionRecord(
        session_id, Path(cwd), directories, title, updated, mode, model, thought_level
    )


def stored_session(db: sqlite3.Connection, session_id: str) -> StoredSession:
    """The session's record, its live messages (decoded on first use) and its live transcript,
    in order; raises ``SessionNotFound``."""
    from agent_core.sessions.codec import StoredMessages
    from agent_core.sessions.store import StoredSession

    row = db.execute(f"SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?", (session_id,))
    found = row.fetchone()
    if found is None:
        raise SessionNotFound(session_id)
    messages = db.execute(
        "SELECT body FROM messages WHERE session_id = ? AND retired = 0 ORDER BY seq",
        (session_id,),
    )
    transcript = db.execute(
        "SELECT body FROM transcript WHERE session_id = ? AND retired = 0 ORDER BY seq",
        (session_id,),
    )
    return StoredSession(
        record_of(found),
        StoredMessages([body for (body,) in messages]),
        tuple(body for (body,) in transcript),
    )


def read_at_once(path: Path, session_id: str) -> StoredSession | None:
    """The session as ``path`` holds it now, read without the store; None when the file is
    missing, not at the current schema, unreadable, busy, or without that session."""
    import sqlite3

    if not path.is_file():
        return None
    try:
        db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error:
        return None
    try:
        if db.execute("PRAGMA user_version").fetchone()[0] != CURRENT:
            return None
        return stored_session(db, session_id)
    except (sqlite3.Error, SessionNotFound, ValueError):
        return None
    finally:
        db.close()
