"""The session store's schema, as the migrations that build it: ``PRAGMA user_version`` is the
number of migrations a file has had. Data only, so that a reader can check a file's version
without loading the store (``rows``)."""

from __future__ import annotations

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        cwd TEXT NOT NULL,
        additional_directories TEXT NOT NULL DEFAULT '[]',
        title TEXT,
        mode TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE INDEX sessions_by_use ON sessions (updated_at DESC, id);
    CREATE INDEX sessions_by_cwd ON sessions (cwd, updated_at DESC, id);
    CREATE TABLE messages (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
    );
    CREATE TABLE transcript (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
    );
    CREATE VIRTUAL TABLE message_text USING fts5 (session_id UNINDEXED, text);
    """,
    """
    ALTER TABLE sessions ADD COLUMN model TEXT;
    ALTER TABLE sessions ADD COLUMN thought_level TEXT;
    """,
    # Rows a compaction replaced or a rewind cut off are kept, marked, and never loaded again.
    """
    ALTER TABLE messages ADD COLUMN retired INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE transcript ADD COLUMN retired INTEGER NOT NULL DEFAULT 0;
    """,
)

CURRENT = len(MIGRATIONS)  # the version a file has once migrated
