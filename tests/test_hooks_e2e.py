"""Hooks end to end, through `heron acp` on real stdio with the fake model server and the real
sandbox: a formatter after an edit (the next request and the next edit see its text), a guard
that refuses `git push`, hooks that fail or hang, a workspace that tries to add hooks, and the
hooks around a prompt, with the JSON each one reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.support.editor import FakeEditor
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall
from tests.support.llm_requests import last_result
from tests.support.permissions import questions
from tests.support.sandbox import END_TO_END_SANDBOX
from tests.support.updates import final, text_of, tool_updates

pytestmark = END_TO_END_SANDBOX

UPPER = 'for f in "$@"; do tr a-z A-Z < "$f" > "$f.new" && cat "$f.new" > "$f" && rm "$f.new"; done'


def configure(home: Path, text: str) -> None:
    (home / "config.toml").write_text(text)


def hook_calls(updates: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each hook's tool call by its title's name: its first update and its last."""
    calls = tool_updates(updates, "hook").values()
    return {u[0]["title"].split(": ", 1)[1].split(" (")[0]: final(u) for u in calls}


def shown(update: dict[str, Any]) -> str:
    return "\n".join(c["content"]["text"] for c in update.get("content", []) if "content" in c)


def run(
    env: dict[str, str], workspace: Path, text: str = "go", **editor: Any
) -> tuple[str, list[dict[str, Any]], FakeEditor]:
    with FakeEditor(env, terminal=False, **editor) as agent:
        session_id = agent.start_session(workspace)
        stop, updates = agent.prompt(session_id, text)
    return stop, updates, agent


def test_a_formatter_after_an_edit_changes_the_file_and_the_next_request_sees_it(
    env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM
) -> None:
    configure(
        heron_home,
        f"[[hooks.after_edit]]\nname = 'upper'\ntools = ['edit_file']\ncommand = '{UPPER}'\n",
    )
    app = workspace / "app.txt"
    app.write_text("hello world\n")
    fake.enqueue(
        Reply((ToolCall("read_file", {"path": "app.txt"}),)),
        Reply((ToolCall("edit_file", {"path": "app.txt", "edits": [edit("hello", "bye")]}),)),
        Reply((ToolCall("edit_file", {"path": "app.txt", "edits": [edit("BYE", "Bye")]}),)),
        Reply((Text("Done."),)),
    )
    stop, updates, editor = run(env, workspace)
    assert stop == "end_turn"
    first = last_result(fake.requests[2].body)
    assert "The after_edit hook 'upper' changed app.txt" in first
    assert "-bye world\n+BYE WORLD" in first
    second = last_result(fake.requests[3].body)  # the guard took the hook's text as read
    assert second.startswith("Edited app.txt") and "changed since you last read" not in second
    assert app.read_text() == "BYE WORLD\n"  # the second edit's "Bye" formatted again
    assert (str(app), "BYE WORLD\n") in editor.writes  # the editor's buffer followed the hook
    diffs = [
        c
        for u in tool_updates(updates, "hook").values()
        for update in u
        for c in update.get("content", [])
        if c["type"] == "diff"
    ]
    assert {(d["oldText"], d["newText"]) for d in diffs} == {
        ("bye world\n", "BYE WORLD\n"),
        ("Bye WORLD\n", "BYE WORLD\n"),
    }


def edit(old: str, new: str) -> dict[str, str]:
    return {"old_string": old, "new_string": new}


def test_a_guard_refuses_git_push_before_anyone_is_asked_and_lets_other_commands_run(
    env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM
) -> None:
    guard = r'grep -q "\"command\": \"git push" && { echo "pushing is for humans" >&2; exit 2; }'
    configure(
        heron_home,
        f"[[hooks.before_tool]]\nname = 'no-push'\ntools = ['terminal']\ncommand = '{guard}; exit 0'\n",
    )
    fake.enqueue(
        Reply((ToolCall("terminal", {"command": "git push origin main"}),)),
        Reply((ToolCall("terminal", {"command": "echo ran-fine"}),)),
        Reply((Text("Done."),)),
    )
    stop, updates, editor = run(env, workspace)
    assert stop == "end_turn"
    refused = last_result(fake.requests[1].body)
    assert refused == "Refused by the before_tool hook 'no-push': pushing is for humans"
    assert "ran-fine" in last_result(fake.requests[2].body)
    assert not any("git push" in q["toolCall"]["title"] for q in questions(editor))
    [push, echo] = tool_updates(updates, "terminal").values()
    assert final(push)["status"] == "failed" and final(echo)["status"] == "completed"
    assert [h["status"] for h in hook_calls(updates).values()] == ["completed"]


def test_a_failing_hook_and_a_hanging_one_are_shown_and_the_turn_goes_on(
    env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM
) -> None:
    outside = Path(f"/var/tmp/heron-hook-e2e-{os.getpid()}")  # the sandbox keeps it read-only
    configure(
        heron_home,
        f"[[hooks.before_tool]]\nname = 'broken'\ncommand = 'touch {outside}'\n"
        "[[hooks.after_tool]]\nname = 'slow'\ncommand = 'sleep 30'\ntimeout = 1\n",
    )
    fake.enqueue(
        Reply((ToolCall("terminal", {"command": "echo still-runs"}),)), Reply((Text("ok"),))
    )
    started = time.monotonic()
    stop, updates, _ = run(env, workspace)
    assert stop == "end_turn" and time.monotonic() - started < 25  # not the 30 s of the sleep
    assert "still-runs" in last_result(fake.requests[1].body)
    hooks = hook_calls(updates)
    assert hooks["broken"]["status"] == "failed"
    assert "it failed with exit code 1" in shown(hooks["broken"])
    assert hooks["slow"]["status"] == "failed"
    assert "it timed out after 1 s and was stopped" in shown(hooks["slow"])
    assert not outside.exists()


def test_a_workspace_cannot_add_hooks(
    env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM
) -> None:
    hostile = (
        "[[hooks.before_tool]]\ncommand = 'echo no >&2; exit 2'\n"
        "[[hooks.prompt_submitted]]\ncommand = 'echo no >&2; exit 2'\n"
        "[[hooks.turn_ended]]\ncommand = 'touch planted'\n"
    )
    (workspace / "config.toml").write_text(hostile)
    (workspace / ".heron").mkdir()
    (workspace / ".heron" / "config.toml").write_text(hostile)
    configure(heron_home, "max_turn_requests = 10\n")
    fake.enqueue(
        Reply((ToolCall("terminal", {"command": "echo not-refused"}),)), Reply((Text("ok"),))
    )
    stop, updates, _ = run(env, workspace, cwd=workspace)
    assert stop == "end_turn"
    assert "not-refused" in last_result(fake.requests[1].body)
    assert tool_updates(updates, "hook") == {}
    assert not (workspace / "planted").exists()


def test_the_hooks_around_a_prompt_and_the_json_each_hook_reads(
    env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM
) -> None:
    configure(
        heron_home,
        "[[hooks.prompt_submitted]]\nname = 'context'\n"
        "command = 'cat > prompt.json; echo \"The build is green.\"'\n"
        "[[hooks.after_edit]]\nname = 'edited'\ncommand = 'cat > edit.json'\n"
        "[[hooks.after_tool]]\nname = 'checked'\ntools = ['write_file']\n"
        "command = 'cat > after.json; echo \"lint: clean\"'\n"
        "[[hooks.turn_ended]]\nname = 'bell'\ncommand = 'cat > turn.json; echo \"turn over\"'\n",
    )
    fake.enqueue(
        Reply((ToolCall("write_file", {"path": "new.txt", "content": "x\n"}),)),
        Reply((Text("Written."),)),
    )
    with FakeEditor(env, terminal=False) as editor:
        session_id = editor.start_session(workspace)
        stop, updates = editor.prompt(session_id, "write new.txt")
    assert stop == "end_turn"
    assert "The build is green." in json.dumps(fake.requests[0].body["messages"][-1])
    assert last_result(fake.requests[1].body) == (
        "Created new.txt (1 lines).\n\n[after_tool hook 'checked']\nlint: clean"
    )
    assert "turn over" in shown(hook_calls(updates)["bell"])
    where = {
        "session_id": session_id,
        "workspace_root": str(workspace),
        "mode": "ask",
    }
    assert read(workspace / "prompt.json") == {
        "event": "prompt_submitted",
        "hook": "context",
        **where,
        "prompt": "write new.txt",
    }
    arguments = {"path": "new.txt", "content": "x\n"}
    assert read(workspace / "edit.json") == {
        "event": "after_edit",
        "hook": "edited",
        **where,
        "tool_name": "write_file",
        "arguments": arguments,
        "paths": [str(workspace / "new.txt")],
    }
    assert read(workspace / "after.json") == {
        "event": "after_tool",
        "hook": "checked",
        **where,
        "tool_name": "write_file",
        "arguments": arguments,
        "result": "Created new.txt (1 lines).",
        "is_error": False,
    }
    assert read(workspace / "turn.json") == {
        "event": "turn_ended",
        "hook": "bell",
        **where,
        "stop_reason": "end_turn",
    }


def read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def test_a_prompt_hook_can_refuse_the_prompt_and_hooks_follow_config_toml(
    env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM
) -> None:
    fake.enqueue(Reply((Text("first"),)), Reply((Text("third"),)))
    with FakeEditor(env, terminal=False) as editor:
        session_id = editor.start_session(workspace)
        assert editor.prompt(session_id, "one")[0] == "end_turn"  # no hooks yet
        configure(
            heron_home,
            "[[hooks.prompt_submitted]]\nname = 'gate'\n"
            "command = 'grep -q friday && { echo \"not on Fridays\" >&2; exit 2; }; exit 0'\n"
            "[[hooks.after_tool]]\ncommand = 'true'\ntimout = 3\n",
        )
        stop, refused = editor.prompt(session_id, "deploy on friday")
        assert editor.prompt(session_id, "deploy on monday")[0] == "end_turn"
    assert stop == "end_turn"
    assert len(fake.requests) == 2  # the refused prompt never reached the model
    assert "not on Fridays" in text_of(refused)  # told to the user, as well as on the hook
    assert "not on Fridays" in shown(hook_calls(refused)["gate"])
    assert "[[hooks.after_tool]] #1: unknown key 'timout'" in text_of(refused)
    assert "deploy on friday" not in json.dumps(fake.requests[1].body)


def test_doctor_lists_the_hooks_and_the_ones_left_out(
    env: dict[str, str], heron_home: Path
) -> None:
    configure(
        heron_home,
        "[[hooks.after_edit]]\nname = 'ruff'\ncommand = ['ruff', 'format']\ntools = ['edit_file']\n"
        "[[hooks.turn_ended]]\ncommand = 'notify-send done'\ntimeout = 5\n"
        "[[hooks.before_tool]]\ncommand = 'x'\ntimeout = 'soon'\n",
    )
    heron = str(Path(sys.executable).with_name("heron"))
    done = subprocess.run(
        [heron, "doctor"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    said = [line for line in done.stdout.splitlines() if "] hook" in line]
    assert said == [
        "[--] hook after_edit: ruff (tools: edit_file), timeout 30 s",
        "[--] hook turn_ended: notify-send done, timeout 5 s",
        "[!!] hooks: config.toml: [[hooks.before_tool]] #1: timeout must be a number >= 0.1, "
        "not 'soon'; this hook is left out",
    ]


def test_in_plan_mode_a_hook_can_write_nothing(
    env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM
) -> None:
    configure(heron_home, "[[hooks.prompt_submitted]]\nname = 'writer'\ncommand = 'touch made'\n")
    fake.enqueue(Reply((Text("ok"),)))
    stop, updates, _ = run({**env, "HERON_MODE": "plan"}, workspace)
    assert stop == "end_turn" and len(fake.requests) == 1  # a failed hook: the prompt goes on
    assert hook_calls(updates)["writer"]["status"] == "failed"
    assert not (workspace / "made").exists()


def test_a_cancel_stops_a_running_hook_and_its_tool_call_is_closed(
    env: dict[str, str], heron_home: Path, workspace: Path
) -> None:
    configure(
        heron_home,
        "[[hooks.prompt_submitted]]\nname = 'stuck'\ncommand = 'sleep 60'\ntimeout = 120\n",
    )

    def hook_running(message: dict[str, Any]) -> bool:
        update = message.get("params", {}).get("update", {})
        return update.get("status") == "in_progress" and update["toolCallId"].startswith("hook-")

    with FakeEditor(env, terminal=False) as editor:
        session_id = editor.turn_under_way(workspace, "go", request_id="p", started=hook_running)
        started = time.monotonic()
        editor.send(
            {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session_id}}
        )
        answer = editor.wait_for(lambda m: m.get("id") == "p", timeout=30)
        assert answer["result"] == {"stopReason": "cancelled"}
        assert time.monotonic() - started < 20  # not the minute of the sleep
        closed = editor.wait_for(
            lambda m: m.get("params", {}).get("update", {}).get("status") == "failed"
        )
    assert closed["params"]["update"]["toolCallId"].startswith("hook-")
