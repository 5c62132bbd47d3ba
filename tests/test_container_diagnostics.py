"""Heron's language servers in a container session, end to end against real Podman: `heron acp`
over stdio, the fake model editing a file, a language server that exists only inside the image
(at /opt/lsp/bin, which the host does not have) reporting diagnostics from inside the container,
a server the image lacks told about once, and nothing of the server left inside once the
session closes; a tethered process killed inside when its exec client is."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from agent_core.execution.container import Container, ContainerSpec
from tests.support import containers
from tests.support.editor import FakeEditor
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall
from tests.support.llm_requests import last_result

SERVER = "/opt/lsp/bin/fakelsp"
# A minimal LSP server: says where it runs (the image's os-release ID) and the file's text as
# its one diagnostic (so an edit makes a new one).
FAKE_LSP = r"""#!/usr/bin/python3
import json, sys
where = open("/etc/os-release").read().split()[0]
def read():
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))
def send(message):
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()
while (message := read()) is not None:
    method, params = message.get("method"), message.get("params") or {}
    if method == "initialize":
        send({"id": message["id"], "result": {"capabilities": {"textDocumentSync": 1}}})
    elif method == "exit":
        break
    elif method in ("textDocument/didOpen", "textDocument/didChange"):
        doc = params["textDocument"]
        text = doc.get("text") or params["contentChanges"][-1]["text"]
        found = {"range": {"start": {"line": 0, "character": 0},
                           "end": {"line": 0, "character": 1}},
                 "severity": 1, "message": f"inside {where} at {doc['uri']}: {text.strip()}"}
        send({"method": "textDocument/publishDiagnostics",
              "params": {"uri": doc["uri"], "version": doc["version"], "diagnostics": [found]}})
    elif "id" in message and method is not None:
        send({"id": message["id"], "result": None})
"""
LOOK = 'for p in /proc/[0-9]*; do tr "\\0" " " <"$p/cmdline"; echo; done 2>/dev/null'


@pytest.fixture(scope="module")
def image() -> Iterator[tuple[str, str]]:
    containers.require_podman()
    os_id = containers.unique_id()
    name = containers.import_image(os_id, {SERVER: FAKE_LSP})
    yield name, os_id
    containers.remove_image(name)


def configure(heron_home: Path, workspace: Path, image: str) -> None:
    options = json.dumps(list(containers.RUN_OPTIONS))
    (heron_home / "config.toml").write_text(
        '[execution]\nbackend = "local"\n'
        f'[execution.workspaces."{workspace}"]\nbackend = "container"\nimage = "{image}"\n'
        f"run_options = {options}\n"
        "[diagnostics]\nfirst_wait = 60.0\nwait = 5.0\n"
        f'[diagnostics.servers.fakelsp]\ncommand = ["{SERVER}"]\nextensions = [".py"]\n'
        '[diagnostics.servers.absent]\ncommand = ["absent-lsp"]\nextensions = [".txt"]\n'
    )


def processes(container: str) -> str:
    done = subprocess.run(
        ["podman", "exec", container, "sh", "-c", LOOK],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout


def edit(path: str, old: str, new: str) -> ToolCall:
    return ToolCall("edit_file", {"path": path, "edits": [{"old_string": old, "new_string": new}]})


def test_a_language_server_only_the_image_has_reports_from_inside_and_goes_with_the_session(
    env: dict[str, str],
    heron_home: Path,
    workspace: Path,
    fake: FakeLLM,
    image: tuple[str, str],
) -> None:
    name, os_id = image
    assert not Path(SERVER).exists()  # not on the host
    configure(heron_home, workspace, name)
    (workspace / "app.py").write_text("x = 1\n")
    (workspace / "notes.txt").write_text("a\n")
    fake.enqueue(
        Reply((ToolCall("read_file", {"path": "app.py"}),)),
        Reply((edit("app.py", "x = 1\n", "x = 2\n"),)),
        Reply((ToolCall("read_file", {"path": "notes.txt"}),)),
        Reply((edit("notes.txt", "a\n", "b\n"),)),
        Reply((edit("notes.txt", "b\n", "c\n"),)),
        Reply((Text("Done."),)),
    )
    container = ContainerSpec((workspace,), Path.home(), heron_home).name
    try:
        with FakeEditor(env) as agent:
            session = agent.start_session(workspace)
            stop, updates = agent.prompt(session, "edit", timeout=120)
            assert stop == "end_turn"
            after_edit = last_result(fake.requests[2].body)
            assert f"inside ID={os_id} at {(workspace / 'app.py').as_uri()}: x = 2" in after_edit
            assert "app.py:1:1: error" in after_edit
            for request in (fake.requests[4], fake.requests[5]):  # not in the image
                assert "Diagnostics unavailable" in last_result(request.body)
            notices = [
                u["content"]["text"]
                for u in updates
                if u["sessionUpdate"] == "agent_message_chunk"
                and "No diagnostics from absent" in u["content"]["text"]
            ]
            assert len(notices) == 1 and "not found in the workspace's container" in notices[0]
            assert SERVER in processes(container)  # it runs inside

            agent.request("session/close", {"sessionId": session})
            # Its shutdown, then the tether's TERM and 1 s to go: seconds on a loaded machine.
            deadline = time.monotonic() + 15
            while (left := processes(container)) and time.monotonic() < deadline:
                if SERVER not in left and "heron-tether" not in left:
                    break
                time.sleep(0.1)
            assert left and SERVER not in left and "heron-tether" not in left, left
            assert agent.close(timeout=30) == 0
    finally:
        containers.remove_container(container)


def test_a_tethered_process_dies_inside_when_its_exec_client_is_killed(
    heron_home: Path, workspace: Path, image: tuple[str, str]
) -> None:
    spec = containers.spec((workspace,), workspace, heron_home, image[0])
    container = Container(containers.engine(heron_home), spec)
    try:
        anyio.run(container.ensure)
        marker = f"{4000 + secrets.randbelow(1000)}.5"
        argv = container.tethered_argv(workspace, ["sh", "-c", f"sleep {marker}; :"])
        with subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True
        ) as client:
            try:
                deadline = time.monotonic() + 10
                while f"sleep {marker}" not in processes(spec.name) and time.monotonic() < deadline:
                    time.sleep(0.05)
                assert f"sleep {marker}" in processes(spec.name)
            finally:
                os.killpg(client.pid, signal.SIGKILL)
                client.wait()
        # The wrapper's grace is 1 s, but on a busy machine the engine notices the client gone
        # late, and each look inside is a `podman exec` of its own: seen past 5 s under load.
        deadline = time.monotonic() + 20

        def gone(left: str) -> bool:  # the process, and the wrapper after its kill's grace
            return f"sleep {marker}" not in left and "heron-tether" not in left

        while not gone(left := processes(spec.name)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert gone(left), left
    finally:
        anyio.run(container.close)
        containers.remove_container(spec.name)
