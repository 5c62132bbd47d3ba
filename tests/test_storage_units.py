"""Storage failures without a subprocess: ``ResilientStore`` over a store that fails on demand,
the SQLite store on paths it cannot use, names for what is moved aside, remembered answers
that cannot be written."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent_core.approval.rules import JsonRuleStore
from agent_core.errors import StorageError
from agent_core.messages import (
    AssistantMessage,
    ImagePart,
    Message,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    UserMessage,
)
from agent_core.sessions import disk
from agent_core.sessions.codec import dump_message, load_message
from agent_core.sessions.resilient import RECOVERED_TITLE, UNSAVED_TITLE, ResilientStore
from agent_core.sessions.sqlite import SqliteSessionStore
from agent_core.sessions.store import SearchHit, SessionRecord, StoredSession


class FlakyStore:
    """A session store whose writes fail while ``failing`` says why; it records the others."""

    def __init__(self, *, failing: str | None = None, recovered: str | None = None) -> None:
        self.failing = failing
        self.recovered = recovered
        self.written: list[tuple[str, str]] = []

    def open(self) -> None:
        if self.failing:
            raise StorageError(self.failing)

    def _write(self, what: str, session_id: str) -> None:
        if self.failing:
            raise StorageError(self.failing)
        self.written.append((what, session_id))

    async def create(self, record: SessionRecord) -> None:
        self._write("create", record.session_id)

    async def update(self, session_id: str, **changes: Any) -> None:
        self._write("update", session_id)

    async def append(
        self,
        session_id: str,
        messages: Sequence[Message],
        transcript: Sequence[dict[str, Any]],
        *,
        replace: bool = False,
    ) -> None:
        self._write("append", session_id)

    async def cut_transcript(self, session_id: str, keep: int) -> None:
        self._write("cut", session_id)

    async def load(self, session_id: str) -> StoredSession:
        raise StorageError(self.failing or "no loads here")

    async def list(
        self, *, cwd: Path | None, cursor: str | None, limit: int
    ) -> tuple[list[SessionRecord], str | None]:
        return [], None

    async def delete(self, session_id: str) -> None:
        self._write("delete", session_id)

    async def search(self, query: str, *, cwd: Path | None, limit: int) -> list[SearchHit]:
        return []

    async def close(self) -> None:
        pass


def record(session_id: str) -> SessionRecord:
    return SessionRecord(session_id, Path("/w"))


@pytest.mark.anyio
async def test_a_session_whose_save_failed_is_not_written_again_and_told_once() -> None:
    inner = FlakyStore()
    store = ResilientStore(inner)
    await store.create(record("a"))
    await store.create(record("b"))
    inner.failing = "/h/sessions.db: database or disk is full"
    await store.append("a", (), [{"sessionUpdate": "plan", "entries": []}])  # does not raise
    inner.failing = None  # the disk has room again
    await store.append("a", (), [{"sessionUpdate": "plan", "entries": []}])
    await store.update("a", title="skipped too: a gap would follow")
    await store.append("b", (), [{"sessionUpdate": "plan", "entries": []}])
    assert inner.written == [("create", "a"), ("create", "b"), ("append", "b")]
    assert store.unsaved("a") == "/h/sessions.db: database or disk is full"
    [notice] = store.notices("a")
    assert notice.title == UNSAVED_TITLE and "database or disk is full" in (
        notice.description or ""
    )
    assert store.notices("a") == [] and store.notices("b") == [] and store.unsaved("b") is None


@pytest.mark.anyio
async def test_a_store_that_cannot_open_leaves_every_session_working_unsaved() -> None:
    store = ResilientStore(FlakyStore(failing="/h/sessions.db: Not a directory"))
    store.open()  # logged, not raised
    for session_id in ("a", "b"):
        await store.create(record(session_id))
        assert [n.title for n in store.notices(session_id)] == [UNSAVED_TITLE]
    with pytest.raises(StorageError):  # reads have nothing to answer with: the server says why
        await store.load("a")


def test_a_history_moved_aside_is_told_once_per_process() -> None:
    store = ResilientStore(FlakyStore(recovered="moved to /h/sessions-unreadable-1.db"))
    assert [n.title for n in store.notices("a")] == [RECOVERED_TITLE]
    assert store.notices("b") == []


def test_the_sqlite_store_moves_an_unreadable_file_aside_and_names_what_it_cannot_use(
    tmp_path: Path,
) -> None:
    db = tmp_path / "sessions.db"
    db.write_bytes(b"\x00garbage" * 100)
    store = SqliteSessionStore(db)
    anyio.run(store.create, record("a"))
    anyio.run(store.close)
    assert store.recovered is not None and "file is not a database" in store.recovered
    [aside] = tmp_path.glob("sessions-unreadable-*.db")
    assert aside.read_bytes() == b"\x00garbage" * 100 and str(aside) in store.recovered

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    unusable = SqliteSessionStore(blocker / "sessions.db")
    for _ in range(2):  # the first failure is kept: no retry on every call
        with pytest.raises(
            StorageError, match=r"a-file/sessions.db: .*a-file is a file, where a folder"
        ):
            anyio.run(unusable.create, record("b"))


def test_aside_names_carry_the_time_and_a_number_when_taken(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    first = disk.aside_path(db, 0.0)
    assert first.name.startswith("sessions-unreadable-") and first.suffix == ".db"
    Path(f"{first}-wal").write_text("")  # its WAL's name is taken: so is the name
    assert disk.aside_path(db, 0.0).name == first.name.replace(".db", "-2.db")


def test_an_answer_that_cannot_be_saved_holds_for_the_session_and_says_why(
    tmp_path: Path,
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    rules = JsonRuleStore(blocker / "heron" / "permissions.json", Path("/w"))
    why = rules.remember("npm test", allow=True)
    assert why is not None and "Not a directory" in why
    assert rules.allowed() == {"npm test"} and rules.rejected() == frozenset()
    assert rules.remember("npm test", allow=False) is not None
    assert rules.allowed() == frozenset() and rules.rejected() == {"npm test"}
    saved = JsonRuleStore(tmp_path / "permissions.json", Path("/w"))
    assert saved.remember("npm test", allow=True) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "permissions.json"]


def test_a_message_is_stored_as_the_json_earlier_versions_wrote() -> None:
    """The stored form is each record's fields in order, nested parts as objects, tuples as
    arrays: what the sessions of earlier versions hold, so both read back the same."""
    message = AssistantMessage(
        (
            ThinkingPart("hmm", "sig"),
            TextPart("yo é"),
            ToolCallPart("c1", "read_file", {"path": "a", "n": [1, 2.5, None, True]}),
        ),
        "m2",
    )
    result = UserMessage(
        (ToolResultPart("c1", "out", True, (ImagePart("BB", "image/jpeg"),)),), "m3"
    )
    stored = [dump_message(message), dump_message(result)]
    assert stored == [
        '{"parts":[{"text":"hmm","signature":"sig","kind":"thinking"},'
        '{"text":"yo é","kind":"text"},{"call_id":"c1","name":"read_file",'
        '"arguments":{"path":"a","n":[1,2.5,null,true]},"invalid_arguments":null,'
        '"kind":"tool_call"}],"message_id":"m2","kind":"assistant"}',
        '{"parts":[{"call_id":"c1","content":"out","is_error":true,"images":[{"data":"BB",'
        '"mime_type":"image/jpeg","kind":"image"}],"kind":"tool_result"}],"message_id":"m3",'
        '"kind":"user"}',
    ]
    assert [load_message(text) for text in stored] == [message, result]
