"""A task's trajectory: the session ``heron exec`` stored, as one ShareGPT record.

The run's session is read back from the store it was written to (``$HERON_HOME/sessions.db``,
by the id the stream's start line gave) and translated by the export's own function, so that
a batch's ``trajectory.json`` is what ``heron export ID --format sharegpt`` writes of the same
session (``bridge.export``): one JSON line, Heron's tools listed in its system turn, so that
trajectories joined together are a JSON Lines data set.
"""

from __future__ import annotations

from pathlib import Path

import anyio

from acp_server.bridge.export import export_text
from agent_core.errors import HeronError, SessionNotFound, StorageError
from agent_core.sessions.sqlite import SqliteSessionStore


class TrajectoryMissing(HeronError):
    """The run's session cannot be read; the message says why."""


async def sharegpt_text(database: Path, session_id: str) -> str:
    """The ShareGPT record of a stored session, as one line of JSON and a line end."""
    if not await anyio.to_thread.run_sync(database.is_file):
        raise TrajectoryMissing(f"no session store at {database}")
    store = SqliteSessionStore(database)
    try:
        stored = await store.load(session_id)
    except SessionNotFound:
        raise TrajectoryMissing(f"session {session_id} was not stored") from None
    except StorageError as exc:
        raise TrajectoryMissing(f"session {session_id} cannot be read: {exc}") from exc
    finally:
        await store.close()
    return export_text(stored, "sharegpt")
