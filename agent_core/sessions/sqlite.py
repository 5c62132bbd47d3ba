"""``SqliteSessionStore``: sessions in ``$HERON_HOME/sessions.db``.

WAL journal, one connection used by one worker thread at a time (the single writer), every
append committed before it returns, so a ``kill -9`` loses at most what was still streaming.
The schema is versioned with ``PRAGMA user_version`` and migrated forward on open.

A file SQLite cannot read is moved aside on open and a fresh one started (``disk``;
``recovered`` says what happened). Every failure of the disk or the file, on open or later,
is raised as ``StorageError`` naming the file and the reason; the first one to open is kept
and raised again, so a process does not retry a store it could not open.
"""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

from agent_core.errors import StorageError
from agent_core.sessions.rows import SESSION_COLUMNS, record_of, stored_session
from agent_core.sessions.schema import MIGRATIONS

if TYPE_CHECKING:  # the server builds the store before answering `initialize`: keep it cheap
    import sqlite3

    from agent_core.messages import Message
    from agent_core.sessions.store import DisplayItem, SearchHit, SessionRecord, StoredSession

T = TypeVar("T")
log = logging.getLogger("heron.sessions")


class SqliteSessionStore:
    def __init__(self, path: Path, redact: Callable[[str], str] = str) -> None:
        """``redact``: applied to every text written (secrets never reach the file)."""
        self._path = path
        self._redact = redact
        self._db: sqlite3.Connection | None = None
        self._one_at_a_time = anyio.CapacityLimiter(1)
        self._opening = threading.Lock()
        self._failure: StorageError | None = None
        self._recovered: str | None = None

    def open(self) -> None:
        """Open and migrate (blocking; the server does it in a worker thread at start-up).
        Raises ``StorageError`` when the store cannot be used."""
        with self._opening:
            if self._db is not None:
                return
            if self._failure is not None:
                raise StorageError(str(self._failure))
            try:
                self._db = self._open_or_start_afresh()
            except StorageError as exc:
                self._failure = exc
                raise

    @property
    def recovered(self) -> str | None:
        """What opening had to do that the user should hear of (an unreadable file moved
        aside), or None."""
        return self._recovered

    def _open_or_start_afresh(self) -> sqlite3.Connection:
        import sqlite3

        from agent_core.sessions import disk

        path = self._path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            problem = disk.not_a_file(path) or disk.not_a_database(path)
            if problem is None:
                seen = disk.identity(path)
                try:
                    return self._connect()
                except sqlite3.DatabaseError as exc:
                    if not disk.is_unreadable(exc):
                        raise
                    if disk.identity(path) != seen:  # another Heron moved it aside just now
                        return self._connect()
                    problem = disk.reason(exc, path)
            moved = disk.move_aside(path)
            self._recovered = (
                f"{path} could not be read ({problem}). It was moved to {moved}, unchanged, "
                "and a new history was started."
            )
            log.warning("%s", self._recovered)
            return self._connect()
        except (OSError, sqlite3.Error) as exc:
            raise StorageError(f"{path}: {disk.reason(exc, path)}") from exc

    def _connect(self) -> sqlite3.Connection:
        import sqlite3

        db = sqlite3.connect(self._path, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")  # with WAL: durable across a killed process
            db.execute("PRAGMA foreign_keys = ON")
            db.execute("PRAGMA busy_timeout = 5000")  # other Heron processes share the file
            db.execute("SELECT count(*) FROM sqlite_schema").fetchone()  # a damaged schema shows
            self._migrate(db)
        except BaseException:
            db.close()
            raise
        return db

    @staticmethod
    def _migrate(db: sqlite3.Connection) -> None:
        import sqlite3

        for number, script in enumerate(MIGRATIONS, start=1):
            if db.execute("PRAGMA user_version").fetchone()[0] >= number:
                continue
            try:
                db.executescript(
                    f"BEGIN IMMEDIATE; {script}; PRAGMA user_version = {number}; COMMIT;"
                )
            except sqlite3.OperationalError:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                if db.execute("PRAGMA user_version").fetchone()[0] < number:
                    raise  # not another process migrating at the same moment: a real failure

    async def create(self, record: SessionRecord) -> None:
        def run(db: sqlite3.Connection) -> None:
            now = time.time()
            extra = json.dumps([str(p) for p in record.additional_directories])
            db.execute(
                "INSERT INTO sessions (id, cwd, additional_directories, title, mode, model,"
                " thought_level, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.session_id,
                    str(record.cwd),
                    extra,
                    self._redact(record.title) if record.title else record.title,
                    record.mode,
                    record.model,
                    record.thought_level,
                    now,
                    now,
                ),
            )

        await self._run(run)

    async def update(
        self,
        session_id: str,
        *,
        title: str | None = None,
        mode: str | None = None,
        model: str | None = None,
        thought_level: str | None = None,
    ) -> None:
        def run(db: sqlite3.Connection) -> None:
            db.execute(
                "UPDATE sessions SET title = coalesce(?, title), mode = coalesce(?, mode),"
                " model = coalesce(?, model), thought_level = coalesce(?, thought_level),"
                " updated_at = ? WHERE id = ?",
                (
                    self._redact(title) if title else title,
                    mode,
                    model,
                    thought_level,
                    time.time(),
                    session_id,
                ),
            )

        await self._run(run)

    async def append(
        self,
        session_id: str,
        messages: Sequence[Message],
        transcript: Sequence[DisplayItem],
        *,
        replace: bool = False,
    ) -> None:
        """``replace``: the messages are the whole conversation now (after a compaction or a
        rewind); the ones they replace are kept, retired."""
        if not messages and not transcript:
            return

        from agent_core.files.json_text import compact_json
        from agent_core.sessions.codec import dump_message, plain_text

        def run(db: sqlite3.Connection) -> None:
            with _transaction(db):
                if replace:
                    db.execute(
                        "UPDATE messages SET retired = 1 WHERE session_id = ? AND retired = 0",
                        (session_id,),
                    )
                redact = self._redact
                for table, bodies in (
                    ("messages", [redact(dump_message(m)) for m in messages]),
                    ("transcript", [redact(compact_json(t)) for t in transcript]),
                ):
                    start = db.execute(
                        f"SELECT coalesce(max(seq), 0) FROM {table} WHERE session_id = ?",
                        (session_id,),
                    ).fetchone()[0]
                    db.executemany(
                        f"INSERT INTO {table} (session_id, seq, body) VALUES (?, ?, ?)",
                        [(session_id, start + i, body) for i, body in enumerate(bodies, 1)],
                    )
                # Search keeps the words of replaced messages: the user may still look for them.
                texts = (
                    []
                    if replace
                    else [(session_id, redact(t)) for m in messages if (t := plain_text(m))]
                )
                db.executemany("INSERT INTO message_text (session_id, text) VALUES (?, ?)", texts)
                db.execute(
                    "UPDATE sessions SET updated_at = ? WHERE id = ?", (time.time(), session_id)
                )

        await self._run(run)

    async def load(self, session_id: str) -> StoredSession:
        return await self._run(lambda db: stored_session(db, session_id))

    async def ids_starting(self, prefix: str, limit: int) -> list[str]:
        """The ids of the sessions whose id starts with ``prefix`` (at most ``limit``, in order):
        what a person who typed the start of an id meant."""

        def run(db: sqlite3.Connection) -> list[str]:
            rows = db.execute(
                "SELECT id FROM sessions WHERE substr(id, 1, ?) = ? ORDER BY id LIMIT ?",
                (len(prefix), prefix, limit),
            )
            return [session_id for (session_id,) in rows]

        return await self._run(run)

    async def cut_transcript(self, session_id: str, keep: int) -> None:
        def run(db: sqlite3.Connection) -> None:
            with _transaction(db):
                db.execute(
                    "UPDATE transcript SET retired = 1 WHERE session_id = ? AND retired = 0"
                    " AND seq NOT IN (SELECT seq FROM transcript WHERE session_id = ?"
                    " AND retired = 0 ORDER BY seq LIMIT ?)",
                    (session_id, session_id, keep),
                )
                db.execute(
                    "UPDATE sessions SET updated_at = ? WHERE id = ?", (time.time(), session_id)
                )

        await self._run(run)

    async def list(
        self, *, cwd: Path | None, cursor: str | None, limit: int
    ) -> tuple[list[SessionRecord], str | None]:
        after = _decode_cursor(cursor) if cursor else None

        def run(db: sqlite3.Connection) -> list[Any]:
            where: list[str] = []
            args: list[Any] = []
            if cwd is not None:
                where.append("cwd = ?")
                args.append(str(cwd))
            if after is not None:
                where.append("(updated_at < ? OR (updated_at = ? AND id > ?))")
                args += [after[0], after[0], after[1]]
            filters = f" WHERE {' AND '.join(where)}" if where else ""
            sql = f"SELECT {SESSION_COLUMNS} FROM sessions{filters}"
            return db.execute(
                sql + " ORDER BY updated_at DESC, id LIMIT ?", (*args, limit + 1)
            ).fetchall()

        rows = await self._run(run)
        records = [record_of(row) for row in rows[:limit]]
        more = len(rows) > limit
        return records, _encode_cursor(records[-1]) if more and records else None

    async def delete(self, session_id: str) -> None:
        def run(db: sqlite3.Connection) -> None:
            with _transaction(db):
                db.execute("DELETE FROM message_text WHERE session_id = ?", (session_id,))
                db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

        await self._run(run)

    async def search(self, query: str, *, cwd: Path | None, limit: int) -> list[SearchHit]:
        from agent_core.sessions.store import SearchHit

        def run(db: sqlite3.Connection) -> list[SearchHit]:
            sql = (
                "SELECT s.id, s.title, snippet(message_text, 1, '[', ']', '…', 12)"
                " FROM message_text JOIN sessions s ON s.id = message_text.session_id"
                " WHERE message_text MATCH ?"
            )
            args: list[Any] = [_fts_query(query)]
            if cwd is not None:
                sql += " AND s.cwd = ?"
                args.append(str(cwd))
            rows = db.execute(sql + " ORDER BY rank LIMIT ?", (*args, limit)).fetchall()
            return [SearchHit(*row) for row in rows]

        return await self._run(run)

    async def close(self) -> None:
        if self._db is not None:
            db, self._db = self._db, None
            await anyio.to_thread.run_sync(db.close, limiter=self._one_at_a_time)

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        def in_thread() -> T:
            self.open()
            assert self._db is not None
            try:
                return work(self._db)
            except Exception as exc:
                from agent_core.sessions import disk

                if not disk.is_storage_failure(exc):
                    raise  # a bug, not the disk
                raise StorageError(f"{self._path}: {disk.reason(exc, self._path)}") from exc

        return await anyio.to_thread.run_sync(in_thread, limiter=self._one_at_a_time)


class _transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is None:
            self._db.execute("COMMIT")
        elif self._db.in_transaction:  # SQLite may have rolled back already (a full disk)
            with contextlib.suppress(Exception):  # the failure that got here is the one to raise
                self._db.execute("ROLLBACK")


def _encode_cursor(record: SessionRecord) -> str:
    return base64.urlsafe_b64encode(
        json.dumps([record.updated_at, record.session_id]).encode()
    ).decode()


def _decode_cursor(cursor: str) -> tuple[float, str]:
    try:
        updated_at, session_id = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        return float(updated_at), str(session_id)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"not a cursor from session/list: {cursor!r}") from exc


def _fts_query(query: str) -> str:
    """Any of the words, each quoted, best matches first: text never becomes FTS5 syntax."""
    return " OR ".join('"' + word.replace('"', '""') + '"' for word in query.split()) or '""'
