"""A ``session/load`` sent at once after ``initialize`` is the front door's: the same replay and
answer as the server's, from the store's file alone; anything it cannot answer whole is the
server's."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_server.front_door import open_connection
from acp_server.handlers.client import ClientInfo
from acp_server.handlers.load_at_once import answer_load
from agent_core.config import load_settings
from agent_core.messages import AssistantMessage, TextPart, ToolCallPart, UserMessage
from agent_core.sessions.sqlite import SqliteSessionStore
from agent_core.sessions.store import SessionRecord
from tests.support.raw import RawAgent
from tests.support.session_load import updates_before

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": 1, "clientCapabilities": {}},
}


def load_line(session_id: str, cwd: Path, request_id: int | str = 1) -> bytes:
    params = {"sessionId": session_id, "cwd": str(cwd), "mcpServers": []}
    message = {"jsonrpc": "2.0", "id": request_id, "method": "session/load", "params": params}
    return json.dumps(message).encode() + b"\n"


def recorded(agent_env: dict[str, str], workspace: Path, prompts: int = 2) -> str:
    """A session stored by a real agent: ``prompts`` turns, with their usage lines."""
    with RawAgent(agent_env) as agent:
        session_id = agent.start_session(workspace)
        for n in range(prompts):
            assert agent.prompt(session_id, f"prompt {n}")[0] == "end_turn"
    return session_id


def loaded(agent_env: dict[str, str], line: bytes, *, at_once: bool) -> Any:
    """A fresh agent's replayed updates and answer for ``line``: sent the moment ``initialize``
    answers (the front door's), or once the server runs (its own); then what follows in 0.5 s."""
    with RawAgent(agent_env) as agent:
        agent.send(INITIALIZE)
        if not at_once:
            agent.wait_for(lambda m: m.get("id") == 0)
            agent.request("session/list", {})  # answered by the server: it runs
        agent.send_raw(line)
        replayed, answer = updates_before(agent, 7)
        after = agent.drain(0.5)
        assert agent.close() == 0, agent.stderr[-2000:]
    return replayed, answer, after


def test_a_load_sent_at_once_replays_and_answers_as_the_server_does(
    agent_env: dict[str, str], workspace: Path, heron_home: Path
) -> None:
    (workspace / ".heron" / "commands").mkdir(parents=True)
    (workspace / ".heron" / "commands" / "ship.md").write_text("Ship it: $ARGUMENTS\n")
    session_id = recorded(agent_env, workspace)
    line = load_line(session_id, workspace, 7)
    request = json.loads(line)["params"]
    assert answer_load(request, load_settings(agent_env), ClientInfo()) is not None  # answerable
    agent_env["HERON_TRACE"] = "1"

    early, early_answer, early_after = loaded(agent_env, line, at_once=True)
    log = (heron_home / "logs" / "heron.log").read_text()
    assert log.count('recv {"jsonrpc": "2.0", "id": 7, "method": "session/load"') == 1
    later, later_answer, later_after = loaded(agent_env, line, at_once=False)

    assert early == later and early_answer == later_answer
    assert [m for m in early_after if m.get("method") == "session/update"] == []
    assert later_after == early_after
    kinds = [update["sessionUpdate"] for update in early]
    assert kinds.count("user_message_chunk") == 2 and kinds[-2:] == [
        "usage_update",
        "available_commands_update",
    ]
    commands = early[-1]["availableCommands"]
    assert "ship" in [c["name"] for c in commands]


def test_a_session_loaded_by_the_front_door_goes_on(
    agent_env: dict[str, str], workspace: Path
) -> None:
    """The server builds the session the front door answered for: its next prompt is stored
    after the earlier ones, and a later load replays all three."""
    session_id = recorded(agent_env, workspace)
    with RawAgent(agent_env) as agent:
        agent.send(INITIALIZE)
        agent.send_raw(load_line(session_id, workspace, 7))
        updates_before(agent, 7)
        assert agent.prompt(session_id, "prompt 2")[0] == "end_turn"
        mode = agent.request("session/set_mode", {"sessionId": session_id, "modeId": "plan"})
        assert "result" in mode
    replay, answer, _ = loaded(agent_env, load_line(session_id, workspace, 7), at_once=True)
    prompts = [u["content"]["text"] for u in replay if u["sessionUpdate"] == "user_message_chunk"]
    assert prompts == ["prompt 0", "prompt 1", "prompt 2"]
    assert answer["result"]["modes"]["currentModeId"] == "plan"  # the stored mode, from the file


@pytest.fixture
def pipes() -> Iterator[tuple[int, int, int, int]]:
    agent_in, editor_out = os.pipe()
    editor_in, agent_out = os.pipe()
    yield agent_in, editor_out, agent_out, editor_in
    for fd in (agent_in, editor_out, agent_out, editor_in):
        with contextlib.suppress(OSError):
            os.close(fd)


def stored(heron_home: Path, workspace: Path, *, interrupted: bool = False) -> str:
    """A session written to the store directly; ``interrupted``: its last tool call has no
    result, as a killed Heron leaves it."""

    async def write() -> None:
        store = SqliteSessionStore(heron_home / "sessions.db")
        await store.create(SessionRecord("s1", workspace, title="stored"))
        last = (
            AssistantMessage((ToolCallPart("c1", "read_file", {"path": "README.md"}),), "m2")
            if interrupted
            else AssistantMessage((TextPart("an answer"),), "m2")
        )
        transcript = [
            {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "hi"}}
        ]
        await store.append("s1", [UserMessage((TextPart("hi"),)), last], transcript)
        await store.close()

    anyio.run(write)
    return "s1"


@pytest.mark.parametrize(
    "case",
    [
        "unknown session",
        "missing cwd",
        "string id",
        "interrupted tool call",
        "template left out",
        "older store",
        "no store",
    ],
)
def test_a_load_the_front_door_cannot_answer_whole_is_the_servers(
    pipes: tuple[int, int, int, int],
    agent_env: dict[str, str],
    heron_home: Path,
    workspace: Path,
    case: str,
) -> None:
    session_id = "no-store"
    if case != "no store":
        session_id = stored(heron_home, workspace, interrupted=case == "interrupted tool call")
    line = load_line(session_id, workspace)
    if case == "unknown session":
        line = load_line("nobody", workspace)
    elif case == "missing cwd":
        line = load_line(session_id, workspace / "missing")
    elif case == "string id":
        line = load_line(session_id, workspace, "1")
    elif case == "template left out":
        (workspace / ".heron" / "commands").mkdir(parents=True)
        os.mkfifo(workspace / ".heron" / "commands" / "hang.md")
    elif case == "older store":
        with contextlib.closing(sqlite3.connect(heron_home / "sessions.db")) as db:
            db.execute("PRAGMA user_version = 2")
    agent_in, editor_out, agent_out, editor_in = pipes
    os.write(editor_out, json.dumps(INITIALIZE).encode() + b"\n" + line)
    os.close(editor_out)
    opening = open_connection(agent_in, agent_out, load_settings(agent_env))
    assert opening.opened is None and opening.unread == line
    os.close(agent_out)
    assert os.read(editor_in, 1 << 20).count(b"\n") == 1  # initialize's answer alone


def test_the_front_door_answers_a_stored_session_from_the_file(
    pipes: tuple[int, int, int, int], agent_env: dict[str, str], heron_home: Path, workspace: Path
) -> None:
    session_id = stored(heron_home, workspace)
    line, then = load_line(session_id, workspace), b'{"jsonrpc":"2.0","id":2,"method":"x"}\n'
    agent_in, editor_out, agent_out, editor_in = pipes
    os.write(editor_out, json.dumps(INITIALIZE).encode() + b"\n" + line + then)
    os.close(editor_out)
    opening = open_connection(agent_in, agent_out, load_settings(agent_env))
    os.close(agent_out)
    _, *replay, answer = os.read(editor_in, 1 << 20).splitlines()
    opened = opening.opened
    assert opened is not None and opened.stored is not None and opening.unread == then
    assert opened.request == line.rstrip(b"\n") and opened.setup.cwd == workspace.resolve()
    assert [json.loads(frame) for frame in replay] == [json.loads(f) for f in opened.replay]
    updates = [json.loads(frame)["params"]["update"]["sessionUpdate"] for frame in replay]
    assert updates == ["user_message_chunk", "available_commands_update"]
    assert json.loads(answer)["id"] == 1 and "modes" in json.loads(answer)["result"]
