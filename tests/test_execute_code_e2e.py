"""`execute_code` end to end: `heron acp` (anthropic SDK against the fake LLM) runs scripts that
call Heron's tools over a real Unix socket, with approvals and diffs in a fake editor."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.editor import FakeEditor
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall
from tests.support.processes import sleep_marker, sleepers, wait_dead
from tests.support.updates import of_kind

RENAME = """
import heron_tools as h

hits = h.search(pattern="OLD_NAME")
files = sorted({line.split(":")[0] for line in hits.splitlines()})
for name in files:
    h.read_file(path=name)
    h.edit_file(path=name, edits=[{"old_string": "OLD_NAME", "new_string": "NEW_NAME"}])
print("renamed in %d files: %s" % (len(files), ", ".join(files)))
"""


@pytest.fixture
def env(env: dict[str, str]) -> dict[str, str]:
    return {**env, "SECRET_TOKEN": "do-not-leak-me"}


def final(updates: list[dict[str, Any]], call_id: str) -> dict[str, Any]:
    return [
        u
        for u in of_kind(updates, "tool_call_update")
        if u["toolCallId"] == call_id and "status" in u
    ][-1]


def run_script(
    env: dict[str, str], workspace: Path, fake: FakeLLM, code: str
) -> tuple[FakeEditor, str, list[dict[str, Any]]]:
    """One prompt whose model runs ``code`` with execute_code, then says "Done."."""
    fake.enqueue(Reply((ToolCall("execute_code", {"code": code}),)), Reply((Text("Done."),)))
    editor = FakeEditor(env)
    session_id = editor.start_session(workspace, {})
    stop, updates = editor.prompt(session_id, "go")
    assert stop == "end_turn"
    return editor, session_id, updates


def script_output(fake: FakeLLM) -> str:
    """The tool result the model got for the script."""
    [result] = [
        b for b in fake.requests[1].body["messages"][-1]["content"] if b["type"] == "tool_result"
    ]
    return (
        result["content"] if isinstance(result["content"], str) else json.dumps(result["content"])
    )


def test_a_script_searches_reads_and_edits_with_every_step_in_view(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    (workspace / "a.py").write_text("x = OLD_NAME  # alpha-body-marker\n")
    (workspace / "b.py").write_text("y = OLD_NAME\n")
    (workspace / "c.txt").write_text("nothing to see\n")
    editor, _, updates = run_script(env, workspace, fake, RENAME)
    with editor:
        asked = [
            r["params"]["toolCall"]
            for r in editor.requests
            if r["method"] == "session/request_permission"
        ]
        assert [a["title"] for a in asked] == ["Run a Python script", "Edit a.py", "Edit b.py"]
        assert (
            "import heron_tools" in asked[0]["content"][0]["content"]["text"]
        )  # the script, reviewed
        assert [c["type"] for c in asked[1]["content"]] == ["diff"] and asked[1]["content"][0][
            "newText"
        ] == "x = NEW_NAME  # alpha-body-marker\n"
        calls = of_kind(updates, "tool_call")
        assert [c["name"] for c in calls] == [
            "execute_code",
            "search",
            "read_file",
            "edit_file",
            "read_file",
            "edit_file",
        ]
        assert calls[0]["kind"] == "execute"
        assert all(final(updates, c["toolCallId"])["status"] == "completed" for c in calls)
        assert (workspace / "a.py").read_text() == "x = NEW_NAME  # alpha-body-marker\n"
        assert [Path(p).name for p, _ in editor.writes] == ["a.py", "b.py"]  # through the editor

        output = script_output(fake)
        assert "renamed in 2 files: a.py, b.py" in output and "status: success" in output
        assert "alpha-body-marker" not in json.dumps(
            fake.requests[1].body["messages"][-1]
        )  # only the summary
        assert editor.close() == 0


def test_a_script_that_never_ends_is_killed_at_its_timeout(
    env: dict[str, str], workspace: Path, fake: FakeLLM, heron_home: Path
) -> None:
    (heron_home / "config.toml").write_text("[code_execution]\ntimeout = 3\ngrace = 0.5\n")
    env["HERON_MODE"] = "full-access"
    editor, _, updates = run_script(
        env, workspace, fake, "print('looping', flush=True)\nwhile True:\n    pass\n"
    )
    with editor:
        [call] = of_kind(updates, "tool_call")
        assert final(updates, call["toolCallId"])["status"] == "failed"
        output = script_output(fake)
        assert "status: timeout (killed after 3 s)" in output and "looping" in output


def test_the_fifty_first_tool_call_is_refused(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    env["HERON_MODE"] = "full-access"
    code = (
        "import heron_tools as h\n"
        "for n in range(51):\n"
        "    try:\n"
        "        h.find_files(glob='*.md')\n"
        "    except h.HeronToolError as e:\n"
        "        print('call', n + 1, 'refused:', e)\n"
    )
    editor, _, updates = run_script(env, workspace, fake, code)
    with editor:
        output = script_output(fake)
        assert "call 51 refused: this script may make at most 50 tool calls" in output
        assert "call 50 refused" not in output and "status: success · 50 tool calls · " in output
        assert len(of_kind(updates, "tool_call")) == 1 + 50  # the refused call never ran


def test_the_script_does_not_see_heron_s_secrets(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    env["HERON_MODE"] = "full-access"
    code = "import os\nprint('token:', os.environ.get('SECRET_TOKEN'), 'key:', os.environ.get('ANTHROPIC_API_KEY'))\n"
    editor, _, _ = run_script(env, workspace, fake, code)
    with editor:
        assert "token: None key: None" in script_output(fake)


def test_project_mode_uses_the_workspace_venv_and_strict_mode_heron_s_python(
    env: dict[str, str], workspace: Path, fake: FakeLLM, heron_home: Path
) -> None:
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(workspace / ".venv")], check=True
    )
    env["HERON_MODE"] = "full-access"
    code = "import os, sys\nprint('prefix', sys.prefix)\nprint('cwd', os.getcwd())\n"
    editor, _, _ = run_script(env, workspace, fake, code)
    with editor:
        output = script_output(fake)
        assert f"prefix {workspace / '.venv'}" in output and f"cwd {workspace}" in output
        assert "the workspace's .venv Python" in output

    (heron_home / "config.toml").write_text('[code_execution]\nmode = "strict"\n')
    fake.requests.clear()
    editor, _, _ = run_script(env, workspace, fake, code)
    with editor:
        output = script_output(fake)
        assert f"prefix {sys.prefix}" in output and f"cwd {workspace}" not in output


def test_cancel_mid_script_ends_the_turn_and_the_script(
    env: dict[str, str], workspace: Path, fake: FakeLLM, tmp_path: Path
) -> None:
    env["HERON_MODE"] = "full-access"
    ready, marker = workspace / "ready", sleep_marker(41)
    code = (
        "import pathlib, subprocess\npathlib.Path('ready').write_text('yes')\n"
        f"subprocess.run(['sleep', '{marker}'])\n"
    )
    fake.enqueue(Reply((ToolCall("execute_code", {"code": code}),)))
    with FakeEditor(env) as editor:
        session_id = editor.start_session(workspace, {})
        editor.start_prompt(session_id, "wait", request_id="p")
        deadline = time.monotonic() + 20
        while not (ready.exists() and sleepers(marker)):
            assert time.monotonic() < deadline, editor.stderr[-2000:]
            time.sleep(0.05)
        pids = sleepers(marker)
        editor.notify("session/cancel", {"sessionId": session_id})
        answer = editor.wait_for(lambda m: m.get("id") == "p")
        assert answer["result"]["stopReason"] == "cancelled"
        assert wait_dead(pids, timeout=2) == []


def test_cancelling_a_scripts_permission_question_ends_the_turn(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    (workspace / "a.py").write_text("x = OLD_NAME\n")
    fake.enqueue(Reply((ToolCall("execute_code", {"code": RENAME}),)))
    with FakeEditor(env) as editor:
        session_id = editor.start_session(workspace, {})
        editor.answers.extend(
            ["allow_once", "cancel"]
        )  # run the script; cancel its edit's question
        stop, updates = editor.prompt(session_id, "rename")
        assert stop == "cancelled"
        assert (workspace / "a.py").read_text() == "x = OLD_NAME\n"
        statuses = {
            u["toolCallId"]: u["status"]
            for u in of_kind(updates, "tool_call_update")
            if "status" in u
        }
        closed = all(s in ("completed", "failed") for s in statuses.values())
        assert closed, statuses  # no tool call left spinning


def test_a_script_that_leaves_a_child_behind_still_ends(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    env["HERON_MODE"] = "full-access"
    marker = sleep_marker(30)
    code = f"import subprocess\nsubprocess.Popen(['sleep', '{marker}'])\nprint('child started')\n"
    started = time.monotonic()
    editor, _, _ = run_script(env, workspace, fake, code)
    with editor:
        output = script_output(fake)
        assert (
            "status: success" in output and time.monotonic() - started < 20
        )  # not the child's 30 s
        assert "child started" in output
        assert wait_dead(sleepers(marker), timeout=2) == []  # stopped with the script's sandbox
