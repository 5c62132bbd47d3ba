"""MCP servers end to end: `heron acp` (real anthropic SDK against the fake LLM) connects real
MCP servers written with the `mcp` SDK, over stdio, streamable HTTP and SSE."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.editor import FakeEditor
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall
from tests.support.mcp_sessions import ROOT, SERVER, open_session, stdio
from tests.support.processes import alive, wait_dead
from tests.support.raw import RawAgent
from tests.support.updates import of_kind


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def remote_servers() -> Iterator[dict[str, str]]:
    """A streamable-HTTP and an SSE MCP server on 127.0.0.1, for the whole module."""
    ports = {"http": free_port(), "sse": free_port()}
    procs = [
        subprocess.Popen(
            [*SERVER, mode, str(port)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for mode, port in ports.items()
    ]
    deadline = time.monotonic() + 20
    for port in ports.values():
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the MCP test servers did not start"
                time.sleep(0.05)
    yield {
        "http": f"http://127.0.0.1:{ports['http']}/mcp",
        "sse": f"http://127.0.0.1:{ports['sse']}/sse",
    }
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def env_config() -> str:
    return "[mcp]\nconnect_timeout = 20\n"


def final_status(updates: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each tool call's last update with a status, by tool call id."""
    last: dict[str, dict[str, Any]] = {}
    for update in of_kind(updates, "tool_call_update"):
        if "status" in update:
            last[update["toolCallId"]] = update
    return last


def notices(editor: RawAgent, updates: list[dict[str, Any]]) -> list[str]:
    seen = updates + [
        m["params"]["update"] for m in editor.drain(0.2) if m.get("method") == "session/update"
    ]
    return [f"{u['title']}\n{u.get('description', '')}" for u in of_kind(seen, "notice")]


def test_tools_of_stdio_http_and_sse_servers_reach_the_model(
    env: dict[str, str],
    workspace: Path,
    fake: FakeLLM,
    heron_home: Path,
    remote_servers: dict[str, str],
) -> None:
    fake.enqueue(
        Reply((ToolCall("mcp__local__add", {"a": 2, "b": 3}),)),
        Reply((ToolCall("mcp__remote__shout", {"text": "over http"}),)),
        Reply((ToolCall("mcp__legacy__picture", {}),)),
        Reply((Text("All three answered."),)),
        Reply((ToolCall("mcp__local__add", {"a": 1, "b": 1}),)),
        Reply((Text("Again."),)),
    )
    servers = [
        stdio("local"),
        {
            "type": "http",
            "name": "remote",
            "url": remote_servers["http"],
            "headers": [{"name": "X-Test", "value": "1"}],
        },
        {"type": "sse", "name": "legacy", "url": remote_servers["sse"], "headers": []},
    ]
    with FakeEditor(env) as editor:
        editor.initialize({"session": {"notices": {}}})
        session_id = open_session(editor, workspace, servers)
        editor.answers.extend(["allow_always", "allow_once", "allow_once"])
        stop, updates = editor.prompt(session_id, "use every server")
        assert stop == "end_turn"
        asked = [
            r["params"] for r in editor.requests if r["method"] == "session/request_permission"
        ]
        assert [a["toolCall"]["title"] for a in asked] == [
            "local: add",
            "remote: shout",
            "legacy: picture",
        ]
        assert "Always allow local: add here" in [o["name"] for o in asked[0]["options"]]
        calls = of_kind(updates, "tool_call")
        assert [c["name"] for c in calls] == [
            "mcp__local__add",
            "mcp__remote__shout",
            "mcp__legacy__picture",
        ]
        assert all(c["kind"] == "other" for c in calls)
        statuses = final_status(updates)
        assert [statuses[c["toolCallId"]]["status"] for c in calls] == ["completed"] * 3

        tools = {t["name"]: t for t in fake.requests[0].body["tools"]}
        assert tools["mcp__local__add"]["input_schema"]["required"] == ["a", "b"]
        assert {"mcp__remote__shout", "mcp__legacy__picture", "read_file"} <= set(tools)
        assert "2 + 3 = 5" in json.dumps(fake.requests[1].body["messages"][-1])
        assert "OVER HTTP" in json.dumps(fake.requests[2].body["messages"][-1])
        [result] = [
            b
            for b in fake.requests[3].body["messages"][-1]["content"]
            if b["type"] == "tool_result"
        ]
        assert [b["type"] for b in result["content"]] == [
            "text",
            "image",
        ]  # the model sees the picture
        [shown] = [
            u["content"]
            for u in of_kind(updates, "tool_call_update")
            if u["toolCallId"] == calls[2]["toolCallId"] and "content" in u
        ]
        assert [c["content"]["type"] for c in shown] == ["text", "image"]  # and so does the user
        assert shown[1]["content"]["mimeType"] == "image/png"

        # "Always allow" stuck: for this workspace, on disk, without asking again.
        rules = json.loads((heron_home / "permissions.json").read_text())
        assert rules[str(workspace)]["allow_tools"] == ["mcp__local__add"]
        before = len(editor.requests)
        stop, _ = editor.prompt(session_id, "once more")
        assert stop == "end_turn" and len(editor.requests) == before
        assert "1 + 1 = 2" in json.dumps(fake.requests[5].body["messages"][-1])
        assert editor.close() == 0


def test_broken_servers_never_hold_up_the_session(
    env: dict[str, str], workspace: Path, fake: FakeLLM, heron_home: Path
) -> None:
    # Generous: a loaded machine (the suite runs in parallel) starts Python servers slowly, and
    # "local" must be up within it for its notice to be the one looked for below.
    connect_timeout = 15.0
    (heron_home / "config.toml").write_text(
        f"[mcp]\nconnect_timeout = {connect_timeout}\n"
        f'[mcp_servers.slow]\ncommand = "{sys.executable}"\nargs = ["-m", "tests.support.mcp_server", "hang"]\n'
        f'env = {{ PYTHONPATH = "{ROOT}" }}\n'
        '[mcp_servers.local]\ncommand = "/nonexistent/overridden-by-the-editor"\n'
    )
    fake.enqueue(Reply((ToolCall("mcp__local__add", {"a": 20, "b": 22}),)), Reply((Text("42."),)))
    env["HERON_MODE"] = "full-access"
    with FakeEditor(env) as editor:
        editor.initialize({"session": {"notices": {}}})
        started = time.monotonic()
        session_id = open_session(editor, workspace, [stdio("broken", "exit"), stdio("local")])
        assert time.monotonic() - started < connect_timeout  # session/new does not wait for them
        stop, updates = editor.prompt(session_id, "add")
        assert stop == "end_turn"
        told = notices(editor, updates)
        assert len(told) == 3, told
        poisoned_notices = [n for n in told if "tool notes left out" in n]  # its description
        assert len(poisoned_notices) == 1, told  # instructs the model
        [poisoned] = poisoned_notices
        assert "MCP server local" in poisoned and "prompt injection" in poisoned
        [broken] = [n for n in told if "broken" in n]
        assert "did not start" in broken and "DATABASE_URL is not set" in broken
        [slow] = [n for n in told if "slow" in n]
        assert (
            f"did not start within {connect_timeout:g} s" in slow
            and "starting up very slowly" in slow
        )
        tools = {t["name"] for t in fake.requests[0].body["tools"]}
        assert "mcp__local__add" in tools and "mcp__local__notes" not in tools
        assert not any(t.startswith(("mcp__broken", "mcp__slow")) for t in tools)
        assert "20 + 22 = 42" in json.dumps(fake.requests[1].body["messages"][-1])


def test_a_server_that_crashes_mid_session(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    fake.enqueue(
        Reply((ToolCall("mcp__local__crash", {}),)),
        Reply((ToolCall("mcp__local__add", {"a": 1, "b": 2}),)),
        Reply((Text("The server is gone."),)),
        Reply((ToolCall("read_file", {"path": "README.md"}),)),
        Reply((Text("Still working."),)),
    )
    env["HERON_MODE"] = "full-access"
    with FakeEditor(env) as editor:
        editor.initialize({})  # no notices: the user is told in a message
        session_id = open_session(editor, workspace, [stdio("local")])
        stop, updates = editor.prompt(session_id, "crash it")
        assert stop == "end_turn"
        crash, add = (final_status(updates)[c["toolCallId"]] for c in of_kind(updates, "tool_call"))
        assert crash["status"] == "failed" and add["status"] == "failed"
        assert "lost the connection to the database" in crash["rawOutput"]["output"]
        assert "stopped" in add["rawOutput"]["output"]
        messages = "".join(u["content"]["text"] for u in of_kind(updates, "agent_message_chunk"))
        assert "MCP server local stopped" in messages
        stop, updates = editor.prompt(session_id, "go on")
        assert stop == "end_turn"
        assert [u["status"] for u in final_status(updates).values()] == ["completed"]


def test_calls_time_out_are_cancellable_and_survive_malformed_answers(
    env: dict[str, str], workspace: Path, fake: FakeLLM, heron_home: Path
) -> None:
    (heron_home / "config.toml").write_text("[mcp]\ncall_timeout = 1\n")
    env["HERON_MODE"] = "full-access"
    fake.enqueue(
        Reply((ToolCall("mcp__local__slow", {"seconds": 5}),)),
        Reply((ToolCall("mcp__junk__broken", {}),)),
        Reply((Text("Noted."),)),
        Reply((ToolCall("mcp__local__slow", {"seconds": 30}),)),
    )
    with FakeEditor(env) as editor:
        editor.initialize({})
        session_id = open_session(editor, workspace, [stdio("local"), stdio("junk", "malformed")])
        stop, updates = editor.prompt(session_id, "be slow, then be wrong")
        assert stop == "end_turn"
        slow, junk = (final_status(updates)[c["toolCallId"]] for c in of_kind(updates, "tool_call"))
        assert (
            slow["status"] == "failed"
            and "did not answer slow within 1 s" in slow["rawOutput"]["output"]
        )
        assert junk["status"] == "failed" and "malformed" in junk["rawOutput"]["output"]

        other = open_session(editor, workspace, [stdio("local")])
        editor.start_prompt(other, "be very slow", request_id="slow")
        editor.wait_for(
            lambda m: m.get("params", {}).get("update", {}).get("status") == "in_progress"
        )
        editor.notify("session/cancel", {"sessionId": other})
        answer = editor.wait_for(lambda m: m.get("id") == "slow")
        assert answer["result"]["stopReason"] == "cancelled"
        closed = [
            m["params"]["update"] for m in editor.drain() if m.get("method") == "session/update"
        ]
        assert not any(
            "did not answer" in json.dumps(u) for u in closed
        )  # cancelled, not timed out


def test_no_server_process_outlives_its_session_or_the_agent(
    env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    env["HERON_MODEL"] = "scripted:echo"
    files = [tmp_path / "closed.pids", tmp_path / "open.pids", tmp_path / "hung.pids"]
    with RawAgent(env) as agent:
        agent.initialize({})
        own_session = {"MCP_CHILD_OWN_SESSION": "1"}  # a child a group signal would miss
        closed = open_session(
            agent, workspace, [stdio("local", env={"MCP_PIDS_FILE": str(files[0]), **own_session})]
        )
        open_session(
            agent, workspace, [stdio("local", env={"MCP_PIDS_FILE": str(files[1]), **own_session})]
        )
        deadline = time.monotonic() + 20
        while not all(f.exists() and f.read_text().strip() for f in files[:2]):
            assert time.monotonic() < deadline, agent.stderr[-2000:]
            time.sleep(0.05)
        pids = {f: [int(p) for p in f.read_text().split()] for f in files[:2]}
        assert all(alive(p) for ps in pids.values() for p in ps)
        assert "result" in agent.request("session/close", {"sessionId": closed})
        assert wait_dead(pids[files[0]]) == []  # the server and its child, gone with the session
        assert all(alive(p) for p in pids[files[1]])
        assert agent.close(timeout=15) == 0
        assert wait_dead(pids[files[1]]) == []  # and the rest when the agent exits


def test_a_terminated_agent_stops_its_servers_too(
    env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    env["HERON_MODEL"] = "scripted:echo"
    pids_file = tmp_path / "pids"
    with RawAgent(env) as agent:
        agent.initialize({})
        open_session(agent, workspace, [stdio("local", env={"MCP_PIDS_FILE": str(pids_file)})])
        deadline = time.monotonic() + 20
        while not (pids_file.exists() and pids_file.read_text().strip()):
            assert time.monotonic() < deadline, agent.stderr[-2000:]
            time.sleep(0.05)
        pids = [int(p) for p in pids_file.read_text().split()]
        agent.proc.terminate()  # what an editor does when it closes
        assert agent.proc.wait(timeout=15) == 0
        assert wait_dead(pids) == []
