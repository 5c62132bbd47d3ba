"""Subagents as child sessions, for an editor that takes them (``clientCapabilities.subagents``):
`heron acp` over real stdio, the real SDK against the fake model server, every message checked
against the vendored schema. Each `delegate` call announces its child on the parent with
`subagent_update` before anything bears the child's id; the child's work arrives under its own
id; the call links to it; its state ends idle; `session/cancel` on a child stops it alone; a
child takes no other request; `session/load` replays the children."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.editor import FakeEditor
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall
from tests.support.raw import RawAgent
from tests.support.subagents import delegate, two_lookups

SUBAGENTS: dict[str, Any] = {"subagents": {}}


@pytest.fixture
def provider() -> str:
    return "anthropic"


def answers(message: dict[str, Any], request_id: str) -> bool:
    return message.get("id") == request_id and "method" not in message


def updates_since(editor: RawAgent, start: int) -> list[dict[str, Any]]:
    """Every ``session/update`` params (its session id and update) since ``start`` arrivals."""
    return [
        message["params"]
        for _, message in editor.arrivals[start:]
        if message.get("method") == "session/update"
    ]


def test_two_subagents_are_two_child_sessions_announced_first(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    two_lookups(workspace, fake)
    with FakeEditor(env) as editor:
        editor.initialize(SUBAGENTS)
        parent = editor.new_session(workspace)
        editor.drain()
        start = len(editor.arrivals)
        stop, _ = editor.prompt(parent, "where are alpha and beta?")
        sent = updates_since(editor, start)
    assert stop == "end_turn"

    announced = [p["update"] for p in sent if p["update"]["sessionUpdate"] == "subagent_update"]
    children = list(dict.fromkeys(u["sessionId"] for u in announced))
    assert len(children) == 2 and parent not in children
    for child in children:
        mine = [n for n, p in enumerate(sent) if p["sessionId"] == child]
        first_announcement = next(
            n
            for n, p in enumerate(sent)
            if p["update"]["sessionUpdate"] == "subagent_update"
            and p["update"]["sessionId"] == child
        )
        assert sent[first_announcement]["sessionId"] == parent  # announced on the parent
        assert first_announcement < mine[0]  # before anything bears the child's id
        states = [u["state"] for u in announced if u["sessionId"] == child]
        assert states[0] == {"state": "running"}
        assert states[-1] == {"state": "idle", "stopReason": "end_turn"}
        theirs = [sent[n]["update"] for n in mine]
        assert theirs[0]["sessionUpdate"] == "session_message"  # its task, from its parent
        assert theirs[0]["senderSessionId"] == parent
        reads = [u for u in theirs if u["sessionUpdate"] == "tool_call"]
        assert [u["name"] for u in reads] == ["read_file"]
        assert "parentToolCallId" not in str(reads)  # the standard shape, not Heron's own
        assert any(u["sessionUpdate"] == "agent_message_chunk" for u in theirs)

    on_parent = [p["update"] for p in sent if p["sessionId"] == parent]
    assert not [
        u for u in on_parent if u.get("sessionUpdate") == "tool_call" and u["name"] == "read_file"
    ]
    contents: list[dict[str, Any]] = [
        c
        for u in on_parent
        if u["sessionUpdate"] == "tool_call_update"
        for c in u.get("content") or []
    ]
    links = {c["sessionId"] for c in contents if c["type"] == "session"}
    assert links == set(children)  # each delegate call links to its child


def test_cancel_on_a_child_stops_it_alone_and_other_requests_are_refused(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    fake.enqueue(
        Reply((delegate("Slow SLOW-TASK"), delegate("Quick QUICK-TASK"))),
        Reply((Text("One stopped, one done."),)),
    )
    fake.enqueue_for("SLOW-TASK", Reply((Text("still thinking " * 200),), chunk_delay=0.05))
    fake.enqueue_for("QUICK-TASK", Reply((Text("quick report"),)))
    with FakeEditor(env) as editor:
        editor.initialize(SUBAGENTS)
        parent = editor.new_session(workspace)
        editor.drain()
        start = len(editor.arrivals)
        editor.start_prompt(parent, "go", request_id="go")

        def a_slow_chunk(m: dict[str, Any]) -> bool:
            params = m.get("params") or {}
            update = params.get("update") or {}
            return (
                m.get("method") == "session/update"
                and update.get("sessionUpdate") == "agent_message_chunk"
                and params["sessionId"] != parent
                and "thinking" in update["content"]["text"]
            )

        slow = editor.wait_for(a_slow_chunk, timeout=30)["params"]["sessionId"]
        refused = editor.request(
            "session/set_mode", {"sessionId": slow, "modeId": "plan"}, check=False
        )
        editor.notify("session/cancel", {"sessionId": slow})
        answer = editor.wait_for(lambda m: answers(m, "go"), timeout=60)
        sent = updates_since(editor, start)
    assert answer["result"]["stopReason"] == "end_turn"  # the parent's turn went on
    assert (
        refused["error"]["code"] == -32602
        and "only request it takes is session/cancel" in (refused["error"]["message"])
    )
    ends = {
        p["update"]["sessionId"]: p["update"]["state"]
        for p in sent
        if p["update"]["sessionUpdate"] == "subagent_update"
        and p["update"]["state"]["state"] == "idle"
    }
    assert ends[slow] == {"state": "idle", "stopReason": "cancelled"}
    [quick] = set(ends) - {slow}
    assert ends[quick] == {"state": "idle", "stopReason": "end_turn"}
    failed = [
        p["update"]
        for p in sent
        if p["sessionId"] == parent
        and p["update"]["sessionUpdate"] == "tool_call_update"
        and p["update"].get("status") == "failed"
    ]
    assert len(failed) == 1 and "user stopped the subagent" in failed[0]["rawOutput"]["output"]
    last = str(fake.requests[-1].body)
    assert "user stopped the subagent" in last and "quick report" in last


def test_a_loaded_session_replays_its_children_only_to_an_editor_that_takes_them(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    fake.enqueue(Reply((delegate("Look LOOK-TASK"),)), Reply((Text("Done."),)))
    fake.enqueue_for(
        "LOOK-TASK",
        Reply((ToolCall("read_file", {"path": "README.md"}),)),
        Reply((Text("it is a sample"),)),
    )
    with FakeEditor(env) as editor:
        editor.initialize(SUBAGENTS)
        parent = editor.new_session(workspace)
        assert editor.prompt(parent, "look")[0] == "end_turn"
    with FakeEditor(env) as editor:  # a restart: the session comes from the store
        editor.initialize(SUBAGENTS)
        start = len(editor.arrivals)
        editor.request(
            "session/load", {"sessionId": parent, "cwd": str(workspace), "mcpServers": []}
        )
        replayed = updates_since(editor, start)
    [child] = {
        p["update"]["sessionId"]
        for p in replayed
        if p["update"]["sessionUpdate"] == "subagent_update"
    }
    first_of_child = next(n for n, p in enumerate(replayed) if p["sessionId"] == child)
    announced = next(
        n for n, p in enumerate(replayed) if p["update"]["sessionUpdate"] == "subagent_update"
    )
    assert announced < first_of_child
    theirs = [p["update"] for p in replayed if p["sessionId"] == child]
    assert [u["name"] for u in theirs if u["sessionUpdate"] == "tool_call"] == ["read_file"]
    assert any("it is a sample" in str(u) for u in theirs)

    with FakeEditor(env) as editor:  # an editor without child sessions: the parent alone
        editor.initialize()
        start = len(editor.arrivals)
        editor.request(
            "session/load", {"sessionId": parent, "cwd": str(workspace), "mcpServers": []}
        )
        plain = updates_since(editor, start)
    assert {p["sessionId"] for p in plain} == {parent}
    assert "subagent_update" not in str(plain) and "'type': 'session'" not in str(plain)
