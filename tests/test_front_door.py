"""The front door: ``initialize`` answered before the server loads, the same answer the server
gives, and everything it does not answer left whole to the server."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from acp_server.front_door import FIRST_LINE_LIMIT, NEXT_LINE_WAIT_S, open_connection
from acp_server.handlers.greeting import greet
from agent_core.config import Settings, load_settings
from tests.support.raw import RawAgent

PARAMS = {
    "protocolVersion": 1,
    "clientCapabilities": {"fs": {"readTextFile": True}, "auth": {"terminal": True}},
    "clientInfo": {"name": "zed", "version": "0.200.0"},
}
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": PARAMS}
NEW = b'{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}\n'


@pytest.fixture
def pipes() -> Iterator[tuple[int, int, int, int]]:
    """(the agent's input, what the editor writes to it, the agent's output, what the editor
    reads from it)."""
    agent_in, editor_out = os.pipe()
    editor_in, agent_out = os.pipe()
    yield agent_in, editor_out, agent_out, editor_in
    for fd in (agent_in, editor_out, agent_out, editor_in):
        with contextlib.suppress(OSError):  # the test closed it already
            os.close(fd)


def opened(pipes: tuple[int, int, int, int], sent: bytes, settings: Settings) -> Any:
    agent_in, editor_out, agent_out, _ = pipes
    os.write(editor_out, sent)
    os.close(editor_out)
    return open_connection(agent_in, agent_out, settings)


def written(pipes: tuple[int, int, int, int]) -> bytes:
    os.close(pipes[2])
    return os.read(pipes[3], 1 << 20)


def test_initialize_is_answered_with_what_greet_gives_and_the_rest_is_kept(
    pipes: tuple[int, int, int, int], heron_home: Path
) -> None:
    settings = Settings(home=heron_home, model="anthropic:claude-sonnet-4-5")
    opening = opened(pipes, json.dumps(INITIALIZE).encode() + b"\n" + NEW, settings)
    client, result = greet(PARAMS, settings)
    answer = written(pipes)
    assert answer.endswith(b"\n") and answer.count(b"\n") == 1
    assert json.loads(answer) == {"jsonrpc": "2.0", "id": 0, "result": result}
    assert result["agentCapabilities"]["promptCapabilities"]["image"] is True
    assert [m["id"] for m in result["authMethods"]] == ["api-key", "heron-login"]
    greeting = opening.greeting
    assert greeting is not None and greeting.client == client
    assert client.name == "zed" and client.can("fs", "readTextFile")
    assert opening.unread == NEW  # the server starts with session/new
    assert (greeting.request, greeting.answer) == (
        json.dumps(INITIALIZE).encode(),
        answer.rstrip(b"\n"),
    )
    assert opening.stops == []


def test_an_editor_gone_before_the_answer_is_left_to_the_server_to_notice(
    pipes: tuple[int, int, int, int], heron_home: Path
) -> None:
    os.close(pipes[3])  # nobody reads the agent's output any more
    opening = opened(pipes, json.dumps(INITIALIZE).encode() + b"\n", Settings(home=heron_home))
    assert opening.greeting is not None and opening.unread == b""


@pytest.mark.parametrize(
    "first",
    [
        NEW,  # not initialize: the server says so
        b'{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":1}}\n',
        b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}\n',  # invalid params
        b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,'
        b'"clientInfo":{"name":"\\ud800"}}}\n',  # a lone surrogate to clean
        b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":NaN}}\n',
        b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,'
        b'"clientCapabilities":' + b'{"a":' * 70 + b"1" + b"}" * 70 + b"}}\n",  # too deep
        b'{"jsonrpc":"1.0","id":0,"method":"initialize","params":{"protocolVersion":1}}\n',
        b"not json\n",
        b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}',  # no \n
        b"",  # the input ended at once
        b"\n" + json.dumps(INITIALIZE).encode() + b"\n",  # a blank line first
    ],
)
def test_anything_else_is_left_whole_to_the_server(
    pipes: tuple[int, int, int, int], heron_home: Path, first: bytes
) -> None:
    opening = opened(pipes, first, Settings(home=heron_home))
    assert opening.greeting is None
    assert opening.unread == first
    assert written(pipes) == b""


def test_the_front_door_loads_no_event_loop_logging_pydantic_or_record_library(
    agent_env: dict[str, str],
) -> None:
    """What ``initialize`` waits for: the front door, and the settings it answers from."""
    server = "acp_server.server"
    unwanted = ("asyncio", "anyio", "logging", "pydantic", "dataclasses", "msgspec", "gzip", server)
    unwanted += ("agent_core.execution.engine", "agent_core.execution.container")
    code = (
        "import sys, acp_server.cli, acp_server.front_door;"
        "from agent_core.config import ConfigWatch; ConfigWatch();"
        f"print(sorted(m for m in {unwanted!r} if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=agent_env
    )
    assert out.stdout.strip() == "[]"


def test_a_real_agent_answers_the_same_from_the_front_door_and_from_the_server(
    agent_env: dict[str, str], workspace: Path, heron_home: Path
) -> None:
    """The first initialize (an integer id) comes from the front door, a string id's from the
    server; a second initialize is the server's too. The trace has the front door's exchange."""
    agent_env["HERON_TRACE"] = "1"
    answers: list[dict[str, Any]] = []
    for request_id in (7, "seven"):

        def answers_it(message: dict[str, Any], request_id: int | str = request_id) -> bool:
            return message.get("id") == request_id

        with RawAgent(agent_env) as agent:
            agent.send({**INITIALIZE, "id": request_id})
            answers.append(agent.wait_for(answers_it))
            again = agent.request("initialize", PARAMS)["result"]
            assert again == answers[-1]["result"]
            agent.new_session(workspace)  # the server serves what follows
            # (that the editor's capabilities reach the server: tests/test_editor_tools.py,
            # whose editor's initialize the front door answers, reads unsaved buffers)
            assert agent.close() == 0
    assert answers[0]["result"] == answers[1]["result"]
    log = (heron_home / "logs" / "heron.log").read_text()
    assert log.count('recv {"jsonrpc": "2.0", "id": 7, "method": "initialize"') == 1
    assert log.count('send {"jsonrpc":"2.0","id":7,"result":') == 1


def test_a_first_line_in_pieces_or_too_long_for_the_front_door(
    pipes: tuple[int, int, int, int], heron_home: Path
) -> None:
    agent_in, editor_out, agent_out, _ = pipes
    line = json.dumps(INITIALIZE).encode() + b"\n"

    def send_slowly(data: bytes) -> None:
        for piece in (data[:10], data[10:40], data[40:]):
            time.sleep(0.05)
            os.write(editor_out, piece)

    writer = threading.Thread(target=send_slowly, args=(line + NEW,))
    writer.start()
    opening = open_connection(agent_in, agent_out, Settings(home=heron_home))
    writer.join()
    assert opening.greeting is not None and opening.unread == NEW

    huge = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"_meta":"' + b"x" * (
        FIRST_LINE_LIMIT + 10
    )
    writer = threading.Thread(target=lambda: (os.write(editor_out, huge), os.close(editor_out)))
    writer.start()
    opening = open_connection(agent_in, agent_out, Settings(home=heron_home))
    rest = b"".join(iter(lambda: os.read(agent_in, 1 << 20), b""))
    writer.join()
    assert opening.greeting is None and opening.unread + rest == huge  # the server gets it all


def catches_stop_signals(pid: int) -> bool:
    """Whether the process has its own SIGTERM and SIGHUP handlers (the front door's)."""
    status = Path(f"/proc/{pid}/status").read_text()
    caught = int(next(ln for ln in status.splitlines() if ln.startswith("SigCgt:")).split()[1], 16)
    return all(caught & (1 << (s - 1)) for s in (signal.SIGTERM, signal.SIGHUP))


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_stop_before_the_first_line_ends_the_agent_quietly(
    agent_env: dict[str, str], stop: signal.Signals
) -> None:
    with RawAgent(agent_env) as agent:
        deadline = time.monotonic() + 10
        while not catches_stop_signals(agent.proc.pid) and time.monotonic() < deadline:
            time.sleep(0.01)  # until the front door waits for the first line
        agent.proc.send_signal(stop)
        assert agent.proc.wait(timeout=10) == 0
    assert b"Traceback" not in agent.stderr


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_stop_while_the_server_loads_is_held_and_obeyed(
    agent_env: dict[str, str], heron_home: Path, stop: signal.Signals
) -> None:
    """Sent the moment initialize is answered: the server is still loading, and stops on it as
    it stops on any signal once it runs."""
    with RawAgent(agent_env) as agent:
        agent.initialize()
        agent.proc.send_signal(stop)
        assert agent.proc.wait(timeout=10) == 0
    assert b"Traceback" not in agent.stderr
    log = (heron_home / "logs" / "heron.log").read_text()
    assert f"{stop.name}: shutting down" in log  # the server's own way out


def new_session_line(cwd: Path, request_id: int = 1) -> bytes:
    params = {"cwd": str(cwd), "mcpServers": []}
    message = {"jsonrpc": "2.0", "id": request_id, "method": "session/new", "params": params}
    return json.dumps(message).encode() + b"\n"


def test_a_session_new_sent_at_once_is_answered_from_the_settings(
    pipes: tuple[int, int, int, int], agent_env: dict[str, str], workspace: Path
) -> None:
    from acp_server.handlers.session_setup import opening_options, opening_result

    settings = load_settings(agent_env)
    new, then = new_session_line(workspace), b'{"jsonrpc":"2.0","id":2,"method":"x"}\n'
    opening = opened(pipes, json.dumps(INITIALIZE).encode() + b"\n" + new + then, settings)
    _, session = written(pipes).splitlines()
    assert opening.greeting is not None and opening.opened is not None
    setup = opening.opened.setup
    assert setup.cwd == workspace.resolve() and setup.mcp_servers == ()
    expected = opening_result(setup.session_id, opening_options(settings, setup))
    assert json.loads(session) == {"jsonrpc": "2.0", "id": 1, "result": expected}
    assert opening.opened.request == new.rstrip(b"\n") and opening.unread == then


@pytest.mark.parametrize(
    "second",
    [
        "missing",  # cwd does not exist: the server says so
        "no credentials",  # the server asks for them
        "string id",
        "neither a session/new nor a session/load",
    ],
)
def test_a_session_new_the_front_door_cannot_answer_whole_is_the_servers(
    pipes: tuple[int, int, int, int],
    agent_env: dict[str, str],
    heron_home: Path,
    workspace: Path,
    second: str,
) -> None:
    settings = load_settings(agent_env)
    line = new_session_line(workspace)
    if second == "missing":
        line = new_session_line(workspace / "missing")
    elif second == "no credentials":
        settings = Settings(home=heron_home, model="anthropic:claude-sonnet-4-5")
    elif second == "string id":
        line = line.replace(b'"id": 1', b'"id": "1"')
    else:
        line = line.replace(b"session/new", b"session/prompt")
    opening = opened(pipes, json.dumps(INITIALIZE).encode() + b"\n" + line, settings)
    assert opening.opened is None and opening.unread == line
    assert written(pipes).count(b"\n") == 1  # initialize's answer alone


def test_a_session_new_that_does_not_come_at_once_is_left_to_the_server(
    pipes: tuple[int, int, int, int], agent_env: dict[str, str]
) -> None:
    agent_in, editor_out, agent_out, _ = pipes
    os.write(editor_out, json.dumps(INITIALIZE).encode() + b"\n")
    started = time.monotonic()
    opening = open_connection(agent_in, agent_out, load_settings(agent_env))
    assert opening.greeting is not None and opening.opened is None and opening.unread == b""
    assert time.monotonic() - started >= NEXT_LINE_WAIT_S  # it waited that long, no more


def test_a_real_agent_opens_the_same_session_from_the_front_door_and_from_the_server(
    agent_env: dict[str, str], workspace: Path, heron_home: Path
) -> None:
    """A session/new sent at once is the front door's: the same answer as the server's, then the
    session is built, stored and announced, and takes prompts."""
    agent_env["HERON_TRACE"] = "1"
    with RawAgent(agent_env) as agent:
        agent.send(INITIALIZE)
        agent.send_raw(new_session_line(workspace, 5))  # at once, without waiting
        early = agent.wait_for(lambda m: m.get("id") == 5)["result"]
        later = agent.request("session/new", {"cwd": str(workspace), "mcpServers": []})["result"]
        assert {**early, "sessionId": ""} == {**later, "sessionId": ""}
        announced = agent.wait_for(
            lambda m: (
                m.get("method") == "session/update"
                and m["params"]["sessionId"] == early["sessionId"]
                and m["params"]["update"]["sessionUpdate"] == "available_commands_update"
            )
        )
        assert announced
        listed = agent.request("session/list", {})["result"]["sessions"]
        assert early["sessionId"] in [s["sessionId"] for s in listed]
        stop, _ = agent.prompt(early["sessionId"], "hello")
        assert stop == "end_turn"
    log = (heron_home / "logs" / "heron.log").read_text()
    assert log.count('recv {"jsonrpc": "2.0", "id": 5, "method": "session/new"') == 1


def test_an_editor_gone_right_after_the_front_doors_session_new_ends_the_agent_cleanly(
    agent_env: dict[str, str], workspace: Path
) -> None:
    """The session's follow-up (commands announced, history notices) finds the output closed:
    that is the editor leaving, not a failure."""
    for _ in range(5):
        with RawAgent(agent_env) as agent:
            agent.send(INITIALIZE)
            agent.send_raw(new_session_line(workspace))
            agent.wait_for(lambda m: m.get("id") == 1)
            assert agent.close() == 0, agent.stderr[-2000:]
