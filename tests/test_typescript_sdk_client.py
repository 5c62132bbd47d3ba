"""End to end with the official TypeScript SDK as the client (tests/node/drive.mjs)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall
from tests.support.schema import WireChecker
from tests.support.scripted_model import scripted

DRIVER = Path(__file__).parent / "node" / "drive.mjs"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None or not (DRIVER.parent / "node_modules").is_dir(),
    reason="needs node and `npm install --prefix tests/node` (make test does both)",
)


def drive(env: dict[str, str], workspace: Path, *args: str) -> dict[str, Any]:
    assert NODE is not None
    command = [NODE, str(DRIVER), "--cwd", str(workspace), "--timeout", "30", *args]
    command += ["--", sys.executable, "-m", "acp_server"]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout
    output: dict[str, Any] = json.loads(lines[0])
    checker = WireChecker()
    for entry in output["wire"]:
        assert entry["message"] is not None, f"not JSON on the wire: {entry}"
        checker.check(entry["dir"], entry["message"])
    return output


def turn_updates(wire: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``session/update`` params the agent sent until it answered the prompt. What follows
    (the model picker's lists, refreshed once the session is idle) may reach the wire after the
    driver stopped handing updates to the SDK."""
    sent: list[dict[str, Any]] = []
    for entry in wire:
        message = entry["message"]
        if "stopReason" in (message.get("result") or {}):
            break
        if message.get("method") == "session/update":
            sent.append(message["params"])
    return sent


def test_a_prompt_streams_through_the_typescript_sdk(
    agent_env: dict[str, str], workspace: Path
) -> None:
    output = drive(agent_env, workspace, "--prompt", "hello from node é中文 😀")
    assert output["initialize"]["protocolVersion"] == 1
    assert output["stopReason"] == "end_turn"
    assert output["exitCode"] == 0
    chunks = [
        u["update"]
        for u in output["updates"]
        if u["update"]["sessionUpdate"] == "agent_message_chunk"
    ]
    assert "".join(c["content"]["text"] for c in chunks) == "You said: hello from node é中文 😀"
    assert all(u["sessionId"] == output["sessionId"] for u in output["updates"])


def test_cancel_through_the_typescript_sdk(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    env = scripted(agent_env, tmp_path, [{"text": "busy"}, {"sleep": 60}])
    output = drive(env, workspace, "--cancel-after-first-update")
    assert output["stopReason"] == "cancelled"
    assert output["exitCode"] == 0
    response_index = next(
        i
        for i, e in enumerate(output["wire"])
        if e["message"].get("result", {}).get("stopReason") == "cancelled"
    )
    later = [
        e
        for e in output["wire"][response_index + 1 :]
        if e["message"].get("method") == "session/update"
    ]
    assert later == []  # nothing for the session after the cancelled prompt's answer


COLOUR = {"question": "Which colour?", "choices": ["Blue", "Green"]}


@pytest.mark.parametrize("elicitation", [True, False])
def test_clarify_through_the_typescript_sdk(
    elicitation: bool, env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    """With form elicitation the SDK's handler answers the form; without it the question's
    choices come as a permission request (the driver picks the first); the model gets the answer."""
    fake.enqueue(Reply((ToolCall("clarify", COLOUR),)), Reply((Text("Painting it."),)))
    args = ["--prompt", "paint it"]
    if elicitation:
        response = {"action": "accept", "content": {"answer": "Green"}}
        args += ["--elicitation", json.dumps(response)]
    output = drive(env, workspace, *args)
    assert output["stopReason"] == "end_turn"
    methods = [e["message"].get("method") for e in output["wire"] if e["dir"] == "from_agent"]
    if elicitation:
        [form] = output["elicitations"]
        assert form["message"] == "Which colour?" and form["mode"] == "form"
        assert "session/request_permission" not in methods
        assert "The user answered: Green" in json.dumps(fake.requests[1].body)
    else:
        assert output["elicitations"] == [] and "session/request_permission" in methods
        assert "The user answered: Blue" in json.dumps(fake.requests[1].body)


def test_child_sessions_through_the_typescript_sdk(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    """A client that takes child sessions, through the newest TypeScript SDK the registry has
    (2.4.0, schema 1.29): every message Heron sends matches the vendored schema (1.34's subagent
    parts), the turn completes, and the children's own updates reach the SDK's handler under
    their ids. That SDK predates stable subagents: it drops the two update kinds it does not know
    (``subagent_update``, ``session_message``) before its handler, which this test records."""
    (workspace / "notes.txt").write_text("the answer is 42\n")
    delegate = ToolCall("delegate", {"task": "Read NOTES-TASK"})
    fake.enqueue(Reply((delegate,)), Reply((Text("It is 42."),)))
    fake.enqueue_for(
        "NOTES-TASK",
        Reply((ToolCall("read_file", {"path": "notes.txt"}),)),
        Reply((Text("notes.txt says 42"),)),
    )
    output = drive(env, workspace, "--subagents", "--prompt", "what is the answer?")
    assert output["stopReason"] == "end_turn" and output["exitCode"] == 0
    parent = output["sessionId"]
    sent = turn_updates(output["wire"])
    announced = {
        p["update"]["sessionId"] for p in sent if p["update"]["sessionUpdate"] == "subagent_update"
    }
    assert len(announced) == 1 and parent not in announced
    [child] = announced
    handled = [(u["sessionId"], u["update"]["sessionUpdate"]) for u in output["updates"]]
    assert (child, "tool_call") in handled and (child, "agent_message_chunk") in handled
    dropped = {
        kind for _, kind in [(p["sessionId"], p["update"]["sessionUpdate"]) for p in sent]
    } - {kind for _, kind in handled}
    assert dropped == {"subagent_update", "session_message"}  # unknown to the 1.29 SDK
