"""A subagent's events through a session's update stream, without a process: as child sessions
(nested ones announced on their own parent) for an editor that takes them, folded into the
parent's calls for one that does not, and kept for replay either way."""

from __future__ import annotations

import json
from typing import Any, cast

import pytest

from acp_server.bridge.stream import UpdateStream
from acp_server.bridge.transcript import TranscriptBuilder, frames
from acp_server.jsonrpc.connection import Connection
from agent_core.events import (
    Event,
    NoticeRaised,
    SubagentEnded,
    SubagentEvent,
    SubagentStarted,
    ToolCallStarted,
)

pytestmark = pytest.mark.anyio


class Recorder:
    """Stands in for the connection: what was sent, in order."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    async def notify(self, method: str, params: Any) -> None:
        self.sent.append((params["sessionId"], params["update"]))


def stopped(log: list[str], name: str) -> Any:
    return lambda: log.append(name)


def nested(log: list[str]) -> list[Event]:
    """The parent's `delegate` call d1 runs child c1, whose own `delegate` call d2 runs g1."""
    look = ToolCallStarted("r1", "read_file", "Read a.py", "read")
    inner = [
        SubagentStarted("g1", "d2", "Grandchild", "look deeper", stopped(log, "g1")),
        SubagentEvent("g1", "d2", look),
        SubagentEvent("g1", "d2", NoticeRaised("warning", "Slow", "it took a while")),
        SubagentEnded("g1", "end_turn"),
    ]
    return [
        SubagentStarted("c1", "d1", "Child", "look", stopped(log, "c1")),
        *(SubagentEvent("c1", "d1", event) for event in inner),
        SubagentEnded("c1", "cancelled"),
    ]


def stream(recorder: Recorder, *, subagents: bool) -> UpdateStream:
    connection = cast(Connection, recorder)
    return UpdateStream(
        connection, "p", TranscriptBuilder(), notices=True, compaction=False, subagents=subagents
    )


async def test_nested_subagents_are_sessions_announced_on_their_own_parent() -> None:
    recorder, log = Recorder(), []
    parent = stream(recorder, subagents=True)
    events = nested(log)
    for event in events[:3]:  # c1 started, g1 started inside it, g1's read
        await parent.report(event)
    assert parent.children.stop("g1") and parent.children.stop("c1") and log == ["g1", "c1"]
    for event in events[3:]:
        await parent.report(event)
    sent = recorder.sent
    announcements = [
        (s, u["sessionId"]) for s, u in sent if u["sessionUpdate"] == "subagent_update"
    ]
    assert announcements == [("p", "c1"), ("c1", "g1"), ("c1", "g1"), ("p", "c1")]
    assert [s for s, u in sent if u["sessionUpdate"] == "tool_call"] == ["g1"]
    assert ("g1", "notice") in [(s, u["sessionUpdate"]) for s, u in sent]
    assert sent[-1] == (
        "p",
        {
            "sessionUpdate": "subagent_update",
            "sessionId": "c1",
            "capabilities": None,
            "state": {"state": "idle", "stopReason": "cancelled"},
        },
    )
    assert not parent.children.stop("c1")  # ended: nothing to stop
    stored = [
        json.dumps(item, separators=(",", ":")) for item in parent.transcript.drain(finished=True)
    ]
    replayed = [json.loads(frame) for frame in frames("p", stored, subagents=True)]
    assert [(f["sessionId"], f["update"]["sessionUpdate"]) for f in replayed] == [
        ("p", "subagent_update"),
        ("c1", "session_message"),
        ("c1", "subagent_update"),
        ("g1", "session_message"),
        ("g1", "tool_call"),
        ("g1", "tool_call_update"),
        ("c1", "subagent_update"),
        ("p", "subagent_update"),
    ]
    announced = [f["update"] for f in replayed if f["update"]["sessionUpdate"] == "subagent_update"]
    assert "state" not in announced[0] and "capabilities" not in announced[0]  # it ended since
    assert announced[-1]["state"] == {"state": "idle", "stopReason": "cancelled"}
    assert frames("p", stored, subagents=False) == []  # nothing of the children for the others


async def test_folded_subagents_are_their_parents_calls_as_before() -> None:
    recorder = Recorder()
    parent = stream(recorder, subagents=False)
    for event in nested([]):
        await parent.report(event)
    kinds = [(s, u["sessionUpdate"]) for s, u in recorder.sent]
    assert {s for s, _ in kinds} == {"p"} and "subagent_update" not in str(kinds)
    [read] = [u for _, u in recorder.sent if u["sessionUpdate"] == "tool_call"]
    assert read["_meta"] == {"heron": {"parentToolCallId": "d2"}}  # its own delegate call's
    [notice] = [u for _, u in recorder.sent if u["sessionUpdate"] == "notice"]
    assert "Subagent: Subagent: Slow" in json.dumps(notice)
