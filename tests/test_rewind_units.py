"""Rewind's pure parts and its store: where the conversation is cut (and where a compaction's
summary forbids it), the prompts a transcript holds, and rows kept but never loaded again."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import anyio
import pytest

from acp_server.bridge.prompts import first_cut, prompts_in
from agent_core.context.compaction import SUMMARY_PREFIX
from agent_core.loop.history import History
from agent_core.loop.rewind import RewindRefused, cut_before
from agent_core.messages import AssistantMessage, Message, TextPart, UserMessage
from agent_core.sessions.sqlite import SqliteSessionStore
from agent_core.sessions.store import SessionRecord


def user(text: str, prompt: str = "") -> UserMessage:
    return UserMessage((TextPart(text),), prompt)


def reply(text: str) -> AssistantMessage:
    return AssistantMessage((TextPart(text),), f"r-{text}")


CONVERSATION: list[Message] = [
    user("one", "p1"),
    reply("1"),
    user("two", "p2"),
    reply("2"),
    user("three", "p3"),
    reply("3"),
]


def test_the_cut_drops_the_first_message_of_that_prompt_or_a_later_one() -> None:
    assert cut_before(CONVERSATION, "p2", {"p2", "p3"}) == 2
    assert cut_before(CONVERSATION, "p1", {"p1", "p2", "p3"}) == 0
    assert cut_before(CONVERSATION, "p4", {"p4"}) == 6  # a prompt that never reached the model


def test_neighbouring_prompts_join_as_the_later_ones_message() -> None:
    history = History([user("one", "p1"), user("two", "p2"), reply("2")])
    assert [m.message_id for m in history.messages] == ["p2", "r-2"]
    assert cut_before(history.messages, "p1", {"p1", "p2"}) == 0


def test_a_prompt_summarised_by_a_compaction_cannot_be_cut_out_of_the_summary() -> None:
    summary = AssistantMessage((TextPart(SUMMARY_PREFIX + "they talked"),))
    compacted: list[Message] = [user("one", "p1"), summary, user("three", "p3"), reply("3")]
    with pytest.raises(RewindRefused) as refused:
        cut_before(compacted, "p2", {"p2", "p3"})
    assert refused.value.earliest == "p3"
    assert cut_before(compacted, "p3", {"p3"}) == 2  # the tail's first prompt
    assert cut_before(compacted, "p1", {"p1", "p2", "p3"}) == 0  # everything goes


def chunk(kind: str, message_id: str, text: str) -> str:
    content = {"type": "text", "text": text}
    return json.dumps({"sessionUpdate": kind, "content": content, "messageId": message_id})


def test_the_prompts_of_a_transcript_with_their_replies() -> None:
    items = [
        chunk("user_message_chunk", "p1", "look at "),
        chunk("user_message_chunk", "p1", "this"),
        json.dumps({"sessionUpdate": "tool_call", "toolCallId": "c"}),
        chunk("agent_message_chunk", "r1", "seen"),
        json.dumps(
            {"sessionId": "child", "update": json.loads(chunk("agent_message_chunk", "x", ""))}
        ),
        chunk("user_message_chunk", "", "an old one"),
        chunk("agent_message_chunk", "r2", "ok"),
        chunk("user_message_chunk", "p3", "again"),
    ]
    prompts = prompts_in(items)
    assert [(p.message_id, p.start, p.text, p.replies) for p in prompts] == [
        ("p1", 0, "look at this", ["r1"]),
        ("", 5, "an old one", ["r2"]),
        ("p3", 7, "again", []),
    ]
    assert first_cut(prompts, "p3") == 2
    assert first_cut(prompts, "r1") == 1  # a reply keeps its turn
    assert first_cut(prompts, "x") is None  # a subagent's message is not the session's


def test_retired_rows_are_kept_and_never_loaded(tmp_path: Path) -> None:
    async def run() -> None:
        store = SqliteSessionStore(tmp_path / "sessions.db")
        await store.create(SessionRecord("s", tmp_path))
        items = [json.loads(chunk("user_message_chunk", f"p{n}", str(n))) for n in range(4)]
        await store.append("s", CONVERSATION, items)
        await store.cut_transcript("s", 1)
        await store.append("s", CONVERSATION[:2], [], replace=True)
        stored = await store.load("s")
        assert [json.loads(t)["messageId"] for t in stored.transcript] == ["p0"]
        assert list(stored.messages) == CONVERSATION[:2]
        await store.close()

    anyio.run(run)
    with sqlite3.connect(tmp_path / "sessions.db") as db:
        assert db.execute("SELECT count(*) FROM transcript WHERE retired = 1").fetchone() == (3,)
        assert db.execute("SELECT count(*) FROM messages").fetchone() == (8,)
