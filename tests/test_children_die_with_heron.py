"""What Heron starts dies with Heron, `kill -9` included: commands (foreground and background,
in the sandbox and outside it), scripts and MCP servers, with what they started in turn. First
the tether on its own, under a stand-in for Heron; then `heron acp` itself, killed mid-turn."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agent_core.ports.groups import parent_of
from agent_core.safety.sandbox.tether import tethered
from tests.support.editor import FakeEditor
from tests.support.mcp_sessions import open_session, stdio
from tests.support.processes import alive, running_sleeps, sleep_marker, sleepers, wait_dead
from tests.support.sandbox import require_bubblewrap
from tests.support.scripted_model import call, scripted

ROOT = Path(__file__).resolve().parent.parent
LINUX = pytest.mark.skipif(sys.platform != "linux", reason="bubblewrap and /proc are Linux's")
# A stand-in for Heron: starts the command from a worker thread that then ends (a parent-death
# signal would fire there), prints its pid, and waits to be killed.
PARENT = """
import json, os, subprocess, sys, threading, time
from agent_core.ports.groups import parent_of
from agent_core.safety.sandbox.tether import tethered

def start():
    command = tethered(json.loads(sys.argv[1]), os.getpid())
    if len(sys.argv) > 2:  # the macOS way: no pidfds
        command[4] = command[4].replace("import tether;", "import tether, os; del os.pidfd_open;")
    child = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL)
    print(child.pid, flush=True)

thread = threading.Thread(target=start)
thread.start()
thread.join()
time.sleep(300)
"""


def marker() -> str:
    return sleep_marker(300)


def wait_for_sleepers(mark: str, count: int, timeout: float = 20) -> list[int]:
    deadline = time.monotonic() + timeout
    while len(found := sleepers(mark)) < count:
        assert time.monotonic() < deadline, f"only {found} of {count} started"
        time.sleep(0.05)
    return found


def wait_for_a_sleep(mark: str, timeout: float = 20) -> list[int]:
    """The processes named ``sleep`` among the marked ones, once there is one: a shell's fork
    carries the mark in its command line before it becomes ``sleep``."""
    deadline = time.monotonic() + timeout
    while not (found := running_sleeps(mark)):
        assert time.monotonic() < deadline, "no sleep started"
        time.sleep(0.05)
    return found


def stand_in(command: str, *, poll: bool = False) -> subprocess.Popen[str]:
    args = [sys.executable, "-c", PARENT, json.dumps(["/bin/sh", "-c", command])]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [*args, *(["poll"] if poll else [])], stdout=subprocess.PIPE, text=True, env=env
    )


@LINUX
@pytest.mark.parametrize("poll", [False, True], ids=["pidfd", "polling"])
def test_a_tethered_command_and_all_it_started_die_with_its_parent_process(poll: bool) -> None:
    mark = marker()
    # a child in its group, one that made a group of its own (timeout does), and the command
    parent = stand_in(f"sleep {mark} & timeout 300 sleep {mark} & sleep {mark}", poll=poll)
    try:
        wait_for_sleepers(mark, 5)  # 3 sleeps, timeout, the watcher (its argv has the command)
        time.sleep(0.5)
        pids = sleepers(mark)
        assert all(alive(p) for p in pids)  # the thread that started them is long gone
        os.kill(parent.pid, signal.SIGKILL)
        assert wait_dead(pids, timeout=15) == []
    finally:
        parent.kill()
        parent.wait()
        assert parent.stdout is not None
        parent.stdout.close()


@LINUX
def test_what_a_finished_command_left_in_its_group_dies_with_the_parent_too() -> None:
    mark = marker()
    parent = stand_in(f"sleep {mark} > /dev/null 2>&1 &")  # the command ends at once
    try:
        [left] = wait_for_a_sleep(mark)
        time.sleep(0.5)
        assert alive(left)
        os.kill(parent.pid, signal.SIGKILL)
        assert wait_dead([left], timeout=15) == []
    finally:
        parent.kill()
        parent.wait()
        assert parent.stdout is not None
        parent.stdout.close()


def test_the_command_keeps_its_pid_output_and_exit_status() -> None:
    me = os.getpid()
    run = subprocess.run(
        tethered(["/bin/sh", "-c", "echo $$; echo oops >&2; exit 7"], me),
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 7 and run.stderr == "oops\n"
    process = subprocess.Popen(tethered(["/bin/sh", "-c", "echo $$"], me), stdout=subprocess.PIPE)
    out, _ = process.communicate(timeout=10)
    assert int(out) == process.pid  # the command is the process Heron started
    killed = subprocess.run(tethered(["/bin/sh", "-c", "kill -TERM $$"], me), check=False)
    assert killed.returncode == -signal.SIGTERM
    missing = subprocess.run(tethered(["/nonexistent/x"], me), capture_output=True, text=True)
    assert missing.returncode == 127 and "cannot run /nonexistent/x" in missing.stderr


@LINUX
def test_the_watcher_is_not_a_child_of_the_command() -> None:
    """A program that waits for any child must not find one it did not start."""
    children = "import os, time; time.sleep(0.3); print(open('/proc/self/task/%d/children' % os.getpid()).read())"
    run = subprocess.run(
        tethered([sys.executable, "-c", children], os.getpid()), capture_output=True, text=True
    )
    assert run.returncode == 0 and run.stdout.strip() == "", run


def test_heron_already_gone_means_the_command_never_starts(tmp_path: Path) -> None:
    gone = subprocess.Popen(["true"])
    gone.wait()
    made = tmp_path / "made"
    run = subprocess.run(tethered(["touch", str(made)], gone.pid), check=False)
    assert run.returncode == 128 + signal.SIGKILL and not made.exists()


@LINUX
def test_finished_commands_leave_no_watcher_behind() -> None:
    mark = marker()
    for _ in range(5):
        subprocess.run(tethered(["/bin/sh", "-c", "exit 0", mark], os.getpid()), check=True)
    deadline = time.monotonic() + 5
    while watchers := _processes_with(mark):
        assert time.monotonic() < deadline, watchers
        time.sleep(0.05)


def _processes_with(text: str) -> list[int]:
    out = subprocess.run(["pgrep", "-f", text], capture_output=True, text=True, check=False)
    return [int(p) for p in out.stdout.split() if int(p) != os.getpid()]


# `heron acp` itself, killed while what it started runs.

SANDBOXES = [pytest.param(True, id="sandbox"), pytest.param(False, id="no-sandbox")]


def agent(
    env: dict[str, str], heron_home: Path, tmp_path: Path, sandbox: bool, *reply: Any
) -> FakeEditor:
    if sandbox:
        require_bubblewrap()  # fails, with the reason, where the tests should have it
    else:
        (heron_home / "config.toml").write_text("[sandbox]\nenabled = false\nrequired = false\n")
    return FakeEditor(scripted(env, tmp_path, *reply), terminal=False)


def kill_heron_and_check(editor: FakeEditor, mark: str, count: int) -> None:
    pids = wait_for_sleepers(mark, count)
    time.sleep(0.3)
    pids = sleepers(mark)
    os.kill(editor.proc.pid, signal.SIGKILL)
    assert wait_dead(pids, timeout=15) == [], [
        Path(f"/proc/{p}/cmdline").read_bytes() for p in pids if alive(p)
    ]


@LINUX
@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("background", [False, True], ids=["foreground", "background"])
def test_a_command_and_its_children_die_when_heron_is_killed(
    agent_env: dict[str, str],
    heron_home: Path,
    workspace: Path,
    tmp_path: Path,
    sandbox: bool,
    background: bool,
) -> None:
    mark = marker()
    command = f"sleep {mark} & timeout 300 sleep {mark} & sleep {mark}"
    arguments: dict[str, Any] = {"command": command, "background": background, "timeout": 600}
    with agent(agent_env, heron_home, tmp_path, sandbox, call("terminal", **arguments)) as editor:
        session_id = editor.start_session(workspace)
        editor.request("session/set_mode", {"sessionId": session_id, "modeId": "full-access"})
        editor.start_prompt(session_id, "run it", request_id="run")
        kill_heron_and_check(editor, mark, 4)


@LINUX
def test_a_script_and_what_it_started_die_when_heron_is_killed(
    agent_env: dict[str, str], heron_home: Path, workspace: Path, tmp_path: Path
) -> None:
    mark = marker()
    code = f"import subprocess, time\nsubprocess.Popen(['sleep', '{mark}'])\ntime.sleep(300)\n"
    with agent(agent_env, heron_home, tmp_path, False, call("execute_code", code=code)) as editor:
        session_id = editor.start_session(workspace)
        editor.request("session/set_mode", {"sessionId": session_id, "modeId": "full-access"})
        editor.start_prompt(session_id, "script it", request_id="run")
        [sleeper] = wait_for_a_sleep(mark)
        script = parent_of(sleeper)
        assert script is not None
        assert "script" in Path(f"/proc/{script}/cmdline").read_text()
        os.kill(editor.proc.pid, signal.SIGKILL)
        assert wait_dead([sleeper, script], timeout=15) == []


@LINUX
def test_an_mcp_server_and_its_child_die_when_heron_is_killed(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    pids_file = tmp_path / "pids"
    with FakeEditor(agent_env) as editor:
        editor.initialize()
        open_session(editor, workspace, [stdio("local", env={"MCP_PIDS_FILE": str(pids_file)})])
        deadline = time.monotonic() + 20
        while not (pids_file.exists() and pids_file.read_text().strip()):
            assert time.monotonic() < deadline, editor.stderr[-2000:]
            time.sleep(0.05)
        pids = [int(p) for p in pids_file.read_text().split()]
        os.kill(editor.proc.pid, signal.SIGKILL)
        assert wait_dead(pids, timeout=15) == []
