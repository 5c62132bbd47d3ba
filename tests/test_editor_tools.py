"""Editor tools end to end: a fake editor on real stdio, the scripted model calling real tools."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.editor import FakeEditor
from tests.support.processes import described, sleep_marker, sleepers, wait_dead
from tests.support.scripted_model import call, scripted
from tests.support.updates import final, tool_updates


def index_of(editor: FakeEditor, predicate: Any) -> int:
    return next(i for i, (_, m) in enumerate(editor.arrivals) if predicate(m))


def test_edit_reads_the_unsaved_buffer_shows_the_diff_first_and_writes_through_the_editor(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    app = workspace / "app.py"
    app.write_text("x = 1\n")
    env = scripted(
        agent_env,
        tmp_path,
        call("read_file", path="app.py"),
        call("edit_file", path="app.py", edits=[{"old_string": "y = 2", "new_string": "y = 3"}]),
    )
    with FakeEditor(env) as editor:
        session_id = editor.start_session(workspace)
        editor.buffers[str(app)] = "x = 1\ny = 2\n"  # typed in the editor, not saved
        stop, updates = editor.prompt(session_id, "change y")
    assert stop == "end_turn"
    [read] = tool_updates(updates, "read_file").values()
    assert (
        read[0]["kind"] == "read"
        and [u["title"] for u in read if "title" in u][-1] == "Read app.py"
    )
    assert "y = 2" in final(read)["rawOutput"]["output"]
    assert any(u.get("locations") == [{"path": str(app), "line": 1}] for u in read)
    [edit] = tool_updates(updates, "edit_file").values()
    assert final(edit)["status"] == "completed" and edit[0]["kind"] == "edit"
    diff = {
        "type": "diff",
        "path": str(app),
        "oldText": "x = 1\ny = 2\n",
        "newText": "x = 1\ny = 3\n",
    }
    assert any(u.get("content") == [diff] for u in edit)
    shown = index_of(
        editor, lambda m: m.get("params", {}).get("update", {}).get("content") == [diff]
    )
    asked = index_of(editor, lambda m: m.get("method") == "session/request_permission")
    written = index_of(editor, lambda m: m.get("method") == "fs/write_text_file")
    assert shown < asked < written  # the diff, then the question, then the write
    [permission] = [r for r in editor.requests if r["method"] == "session/request_permission"]
    assert permission["params"]["toolCall"]["content"] == [diff]
    assert editor.writes == [(str(app), "x = 1\ny = 3\n")]
    assert app.read_text() == "x = 1\ny = 3\n"


def test_a_rejected_edit_leaves_the_file_alone_and_tells_the_model(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    (workspace / "a.txt").write_text("old\n")
    env = scripted(
        agent_env,
        tmp_path,
        call("read_file", path="a.txt"),
        call("write_file", path="a.txt", content="new\n"),
    )
    with FakeEditor(env, fs=False) as editor:
        session_id = editor.start_session(workspace)
        editor.answers.append("reject_once")
        stop, updates = editor.prompt(session_id, "rewrite it")
    assert stop == "end_turn"
    [write] = tool_updates(updates, "write_file").values()
    assert final(write)["status"] == "failed"
    assert "rejected" in final(write)["rawOutput"]["output"]
    assert (workspace / "a.txt").read_text() == "old\n"
    assert editor.writes == []


def test_an_edit_of_a_file_changed_since_it_was_read_is_refused(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    (workspace / "a.txt").write_text("one\n")
    env = scripted(
        agent_env,
        tmp_path,
        call("read_file", path="a.txt"),
        call("edit_file", path="a.txt", edits=[{"old_string": "one", "new_string": "two"}]),
    )
    with FakeEditor(env) as editor:
        session_id = editor.start_session(workspace)
        editor.answers.append("allow_once")
        original = editor.answer

        def change_after_read(message: dict[str, Any]) -> None:
            original(message)
            if message["method"] == "fs/read_text_file":
                editor.buffers[str(workspace / "a.txt")] = "one\nchanged by the user\n"

        editor.answer = change_after_read  # type: ignore[method-assign]
        _, updates = editor.prompt(session_id, "edit")
    [edit] = tool_updates(updates, "edit_file").values()
    assert final(edit)["status"] == "failed"
    assert "changed since you last read it" in final(edit)["rawOutput"]["output"]
    assert editor.writes == []


def test_allow_always_for_a_command_prefix_survives_a_restart(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path, heron_home: Path
) -> None:
    env = scripted(agent_env, tmp_path, call("terminal", command="echo first > first.txt"))
    with FakeEditor(env, terminal=False) as editor:
        editor.initialize()
        editor.answers.append("allow_always")
        _, updates = editor.prompt(editor.new_session(workspace), "run it")
    [run] = tool_updates(updates, "terminal").values()
    assert final(run)["status"] == "completed" and (workspace / "first.txt").exists()
    rules = json.loads((heron_home / "permissions.json").read_text())
    assert rules[str(workspace)]["allow_commands"] == ["echo"]
    env = scripted(agent_env, tmp_path, call("terminal", command="echo second > second.txt"))
    with FakeEditor(env, terminal=False) as editor:  # a new process: a restart
        _, updates = editor.prompt(editor.start_session(workspace), "run it again")
        asked = [r for r in editor.requests if r["method"] == "session/request_permission"]
    [run] = tool_updates(updates, "terminal").values()
    assert asked == [] and final(run)["status"] == "completed"
    assert (workspace / "second.txt").read_text() == "second\n"


def test_a_symlink_out_of_the_workspace_is_never_written_without_asking(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s3cret\n")
    (workspace / "link").symlink_to(outside)
    env = scripted(
        agent_env,
        tmp_path,
        call("read_file", path="link/secret.txt"),
        call("write_file", path="link/evil.txt", content="pwned\n"),
    )
    with FakeEditor(env) as editor:
        session_id = editor.start_session(workspace)
        editor.request("session/set_mode", {"sessionId": session_id, "modeId": "full-access"})
        editor.answers.append("reject_once")
        _, updates = editor.prompt(session_id, "escape")
    [read] = tool_updates(updates, "read_file").values()
    assert (
        final(read)["status"] == "failed"
        and "outside the workspace" in final(read)["rawOutput"]["output"]
    )
    [permission] = [r for r in editor.requests if r["method"] == "session/request_permission"]
    assert permission["params"]["toolCall"]["content"][0]["path"] == str(outside / "evil.txt")
    assert not (outside / "evil.txt").exists()


def test_plan_mode_refuses_edits_and_commands(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    env = scripted(
        agent_env,
        tmp_path,
        call("write_file", path="new.txt", content="x"),
        call("terminal", command="touch made.txt"),
    )
    with FakeEditor(env) as editor:
        session_id = editor.start_session(workspace)
        editor.request("session/set_mode", {"sessionId": session_id, "modeId": "plan"})
        editor.drain(quiet=0.1)
        _, updates = editor.prompt(session_id, "do things")
    for calls in tool_updates(updates).values():
        assert (
            final(calls)["status"] == "failed"
            and "plan mode" in final(calls)["rawOutput"]["output"]
        )
    assert not (workspace / "new.txt").exists() and not (workspace / "made.txt").exists()
    assert [r for r in editor.requests if r["method"] == "session/request_permission"] == []


def test_leaving_plan_mode_is_a_switch_mode_question(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    env = scripted(agent_env, tmp_path, call("switch_mode", plan="1. edit\n2. test"))
    with FakeEditor(env) as editor:
        session_id = editor.start_session(workspace)
        editor.request("session/set_mode", {"sessionId": session_id, "modeId": "plan"})
        editor.drain(quiet=0.1)
        editor.answers.append("accept-edits")
        _, updates = editor.prompt(session_id, "plan it")
    [question] = [r for r in editor.requests if r["method"] == "session/request_permission"]
    assert question["params"]["toolCall"]["kind"] == "switch_mode"
    assert [o["optionId"] for o in question["params"]["options"]] == [
        "accept-edits",
        "ask",
        "full-access",
        "plan",
    ]
    assert {"sessionUpdate": "current_mode_update", "currentModeId": "accept-edits"} in updates


def test_dangerous_commands_ask_even_in_full_access(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    (workspace / "build").mkdir()
    env = scripted(agent_env, tmp_path, call("terminal", command="rm -rf build"))
    with FakeEditor(env, terminal=False) as editor:
        session_id = editor.start_session(workspace)
        editor.request("session/set_mode", {"sessionId": session_id, "modeId": "full-access"})
        editor.answers.append("reject_once")
        editor.prompt(session_id, "clean")
    [question] = [r for r in editor.requests if r["method"] == "session/request_permission"]
    assert [o["kind"] for o in question["params"]["options"]] == ["allow_once", "reject_once"]
    assert (workspace / "build").is_dir()


def test_a_cancelled_permission_request_ends_the_turn_cancelled(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    env = scripted(agent_env, tmp_path, call("terminal", command="echo hi > hi.txt"))
    with FakeEditor(env, terminal=False) as editor:
        session_id = editor.start_session(workspace)
        editor.answers.append("cancel")
        stop, updates = editor.prompt(session_id, "run")
        [run] = tool_updates(updates, "terminal").values()
        assert stop == "cancelled" and final(run)["status"] == "failed"


def test_commands_run_in_the_editors_terminal_when_it_has_one(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    env = scripted(agent_env, tmp_path, call("terminal", command="echo from-the-editor"))
    with FakeEditor(env) as editor:
        _, updates = editor.prompt(editor.start_session(workspace), "run")
    methods = [r["method"] for r in editor.requests if r["method"].startswith("terminal/")]
    assert methods[0] == "terminal/create" and methods[-1] == "terminal/release"
    [run] = tool_updates(updates, "terminal").values()
    assert any(u.get("content") == [{"type": "terminal", "terminalId": "term-1"}] for u in run)
    assert "from-the-editor" in final(run)["rawOutput"]["output"]


def test_without_editor_capabilities_nothing_is_asked_of_the_editor(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    (workspace / "a.txt").write_text("hello\n")
    env = scripted(
        agent_env,
        tmp_path,
        call("read_file", path="a.txt"),
        call("terminal", command="echo ok"),
        call("search", pattern="hel+o"),
        call("find_files", glob="*.txt"),
    )
    with FakeEditor(env, fs=False, terminal=False) as editor:
        _, updates = editor.prompt(editor.start_session(workspace), "go")
    assert {r["method"] for r in editor.requests} <= {"session/request_permission"}
    outputs = {
        v[0]["name"]: final(v)["rawOutput"]["output"] for v in tool_updates(updates).values()
    }
    assert "hello" in outputs["read_file"] and "ok" in outputs["terminal"]
    assert "a.txt:1:hello" in outputs["search"] and outputs["find_files"] == "a.txt"


def test_cancel_during_a_command_kills_its_process_group(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    marker = sleep_marker(31)
    env = scripted(
        agent_env,
        tmp_path,
        call("terminal", command=f"sleep {marker} & sleep {marker}; touch finished"),
    )
    with FakeEditor(env, terminal=False) as editor:
        session_id = editor.start_session(workspace)
        editor.answers.append("allow_once")
        editor.start_prompt(session_id, "sleep", request_id="p")
        request = editor.wait_for(lambda m: m.get("method") == "session/request_permission")
        editor.answer(request)
        editor.wait_for(
            lambda m: m.get("params", {}).get("update", {}).get("status") == "in_progress"
        )
        time.sleep(0.3)
        assert sleepers(marker), "the command should be running"
        started = time.monotonic()
        editor.notify("session/cancel", {"sessionId": session_id})
        response = editor.wait_for(lambda m: m.get("id") == "p")
        assert response["result"] == {"stopReason": "cancelled"}
        assert time.monotonic() - started < 3
    assert wait_dead(sleepers(marker), timeout=5) == []


def test_local_commands_do_not_see_secrets(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    env = scripted(
        {**agent_env, "MY_API_KEY": "sk-secret", "DEPLOY_TOKEN": "t0k", "PLAIN_SETTING": "visible"},
        tmp_path,
        call("terminal", command="env"),
    )
    with FakeEditor(env, terminal=False) as editor:
        _, updates = editor.prompt(editor.start_session(workspace), "env")
    output = final(next(iter(tool_updates(updates, "terminal").values())))["rawOutput"]["output"]
    assert "PLAIN_SETTING=visible" in output
    assert "sk-secret" not in output and "t0k" not in output


def test_background_processes_can_be_polled_and_killed(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    marker = sleep_marker(27)
    env = scripted(
        agent_env,
        tmp_path,
        call("terminal", command=f"echo started; sleep {marker}", background=True),
        [{"sleep": 0.5}, *call("process", id="bg-1", action="output")],  # give it time to print
        call("process", id="bg-1", action="kill"),
    )
    with FakeEditor(env, terminal=False) as editor:
        session_id = editor.start_session(workspace)
        editor.request("session/set_mode", {"sessionId": session_id, "modeId": "full-access"})
        _, updates = editor.prompt(session_id, "serve")
    outputs = [final(v)["rawOutput"]["output"] for v in tool_updates(updates).values()]
    assert "bg-1" in outputs[0]
    assert outputs[1].startswith("still running") and "started" in outputs[1]
    assert outputs[2].startswith("killed by SIG")
    assert wait_dead(sleepers(marker), timeout=5) == []


def test_background_processes_die_with_the_agent(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    marker = sleep_marker(26)
    env = scripted(
        agent_env, tmp_path, call("terminal", command=f"sleep {marker}", background=True)
    )
    with FakeEditor(env, terminal=False) as editor:
        session_id = editor.start_session(workspace)
        editor.request("session/set_mode", {"sessionId": session_id, "modeId": "full-access"})
        editor.prompt(session_id, "start it")
        assert sleepers(marker)
        assert editor.close() == 0
    left = _gone(marker, within=15.0)  # killed as Heron exits; gone within seconds
    assert left == [], f"{described(left)}\nHeron's log:\n{editor.stderr[-4000:]}"


def _gone(marker: str, within: float) -> list[int]:
    """The processes still running ``sleep <marker>`` after waiting up to ``within`` seconds
    for them to end (a loaded machine may take a moment to reap a killed group)."""
    deadline = time.monotonic() + within
    while (left := sleepers(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def test_the_plan_reaches_the_editor_whole_every_time(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    items = [
        {"content": "read", "status": "completed"},
        {"content": "edit", "status": "in_progress", "priority": "high"},
    ]
    env = scripted(agent_env, tmp_path, call("todo", items=items))
    with FakeEditor(env) as editor:
        _, updates = editor.prompt(editor.start_session(workspace), "plan")
    [plan] = [u for u in updates if u["sessionUpdate"] == "plan"]
    assert plan["entries"] == [
        {"content": "read", "priority": "medium", "status": "completed"},
        {"content": "edit", "priority": "high", "status": "in_progress"},
    ]


def test_searches_never_list_version_control_internals(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (workspace / "a.txt").write_text("hello\n")
    env = scripted(
        agent_env,
        tmp_path,
        call("find_files", glob="*"),
        call("search", pattern="e", glob=["*"]),
    )
    with FakeEditor(env, fs=False, terminal=False) as editor:
        _, updates = editor.prompt(editor.start_session(workspace), "go")
    outputs = {
        v[0]["name"]: final(v)["rawOutput"]["output"] for v in tool_updates(updates).values()
    }
    assert "a.txt" in outputs["find_files"].splitlines()
    assert ".git" not in outputs["find_files"]
    assert "a.txt:1:hello" in outputs["search"].splitlines()
    assert ".git" not in outputs["search"]


@pytest.mark.parametrize("name", ["pipe.txt", "pipe.png"])
def test_reading_a_fifo_from_disk_fails_at_once_and_the_turn_goes_on(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path, name: str
) -> None:
    os.mkfifo(workspace / name)  # anything a command ran can leave one; opening it would block
    env = scripted(agent_env, tmp_path, call("read_file", path=name))
    with FakeEditor(env, fs=False) as editor:
        session_id = editor.start_session(workspace)
        started = time.monotonic()
        stop, updates = editor.prompt(session_id, "read the pipe")
        assert time.monotonic() - started < 10  # the per-test timeout would catch a hang too
    assert stop == "end_turn"
    [read] = tool_updates(updates, "read_file").values()
    assert final(read)["status"] == "failed"
    assert "named pipe" in final(read)["rawOutput"]["output"]
