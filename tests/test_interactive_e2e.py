"""Commands that wait for input, end to end: a real ``heron acp`` on stdio, the scripted model
calling the real tools, commands in the real sandbox.

By default nothing waits for a person (stdin closed, the unattended table); a program started
with ``interactive=true`` runs in a pseudo-terminal, is reported waiting, and is answered."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.editor import FakeEditor
from tests.support.permissions import full_access, questions
from tests.support.processes import alive, sleep_marker, sleepers
from tests.support.sandbox import END_TO_END_SANDBOX
from tests.support.scripted_model import call, scripted
from tests.support.updates import final, tool_updates

pytestmark = END_TO_END_SANDBOX
ASK = "name = input('name? ')\nprint(f'hello {name}, from the sandbox')\n"


def outputs(updates: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Each tool call's final status and output, in order."""
    return [
        (final(u)["status"], str(final(u)["rawOutput"]["output"]))
        for u in tool_updates(updates).values()
    ]


@pytest.mark.parametrize("terminal", [False, True], ids=["local", "editor-terminal"])
def test_a_script_asking_for_input_is_reported_waiting_and_answered(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path, terminal: bool
) -> None:
    (workspace / "ask.py").write_text(ASK)
    env = scripted(
        agent_env,
        tmp_path,
        call("terminal", command="python3 ask.py", interactive=True),
        call("process", id="tty-1", action="send", input="Ada\n"),
    )
    with FakeEditor(env, terminal=terminal) as editor:
        started = time.monotonic()
        _, updates = editor.prompt(full_access(editor, workspace), "ask me")
        took = time.monotonic() - started
        created = [r for r in editor.requests if r["method"] == "terminal/create"]
    (start_status, start), (send_status, answer) = outputs(updates)
    assert start_status == "completed" and "Started interactively as tty-1" in start
    assert "waiting for input" in start and start.rstrip().endswith("name?")
    assert send_status == "completed" and answer.startswith("exit code 0")
    assert "name? Ada\nhello Ada, from the sandbox" in answer
    assert created == []  # ACP terminals take no input: the pseudo-terminal is Heron's
    assert took < 30  # generous: the start's result waits at most a few seconds


def test_ctrl_c_stops_a_program_in_the_pseudo_terminal(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    marker = sleep_marker(61)
    env = scripted(
        agent_env,
        tmp_path,
        call("terminal", command=f"echo counting; sleep {marker}", interactive=True),
        call("process", id="tty-1", action="send", keys=["Ctrl-C"]),
        call("process", id="tty-1", action="send", input="more\n"),
    )
    with FakeEditor(env, terminal=False) as editor:
        _, updates = editor.prompt(full_access(editor, workspace), "count")
    (_, start), (_, stopped), (failed, late) = outputs(updates)
    assert "still running\ncounting" in start
    assert stopped.startswith("exit code 130")  # the shell, ended by SIGINT
    assert failed == "failed" and "nothing to send input to" in late
    assert [p for p in sleepers(marker) if alive(p)] == []


def test_an_interactive_program_dies_with_the_session(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    marker = sleep_marker(62)
    env = scripted(
        agent_env, tmp_path, call("terminal", command=f"sleep {marker}", interactive=True)
    )
    with FakeEditor(env, terminal=False) as editor:
        editor.prompt(full_access(editor, workspace), "start it")
        assert sleepers(marker)
        assert editor.close() == 0
    deadline = time.monotonic() + 15
    while [p for p in sleepers(marker) if alive(p)] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [p for p in sleepers(marker) if alive(p)] == []


@pytest.mark.parametrize("terminal", [False, True], ids=["local", "editor-terminal"])
def test_by_default_nothing_waits_for_a_person(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path, terminal: bool
) -> None:
    commit = "git init -q r && cd r && git -c user.name=a -c user.email=a@b commit --allow-empty"
    env = scripted(
        {**agent_env, "EDITOR": "vi", "PAGER": "less", "GIT_TERMINAL_PROMPT": "1"},
        tmp_path,
        call("terminal", command='python3 -c "input()"', timeout=60),
        call("terminal", command=f"env; readlink /proc/self/fd/0; {commit}; echo commit=$?"),
    )
    with FakeEditor(env, terminal=terminal) as editor:
        started = time.monotonic()
        _, updates = editor.prompt(full_access(editor, workspace), "try")
        took = time.monotonic() - started
    (status, eof), (_, environment) = outputs(updates)
    assert status == "failed" and "exit code 1" in eof and "EOFError" in eof
    lines = environment.splitlines()
    assert {"GIT_TERMINAL_PROMPT=0", "EDITOR=true", "PAGER=cat", "GIT_PAGER=cat"} <= set(lines)
    assert "Aborting commit due to empty commit message." in environment
    assert "/dev/null" in lines  # stdin, whichever runner ran it
    assert "commit=1" in lines
    assert took < 30  # not the 60 s time limit: nothing hung


def test_what_is_typed_into_a_shell_is_judged_like_a_command(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    (workspace / "keep.txt").write_text("mine\n")
    env = scripted(
        agent_env,
        tmp_path,
        call("terminal", command="sh", interactive=True),
        call("process", id="tty-1", action="send", input="rm -rf keep.txt\n"),
        call("process", id="tty-1", action="send", input="echo typed-$((6 * 7))\n"),
    )
    with FakeEditor(env, terminal=False) as editor:
        editor.answers.append("reject_once")  # the first question: the dangerous line
        session_id = full_access(editor, workspace)
        _, updates = editor.prompt(session_id, "use a shell")
        asked = questions(editor)
    (_, _), (refused, why), (typed, echoed) = outputs(updates)
    assert [q["toolCall"]["title"] for q in asked] == ["Type `rm -rf keep.txt` into tty-1"]
    assert refused == "failed" and "rm -rf keep.txt" not in echoed
    assert (workspace / "keep.txt").read_text() == "mine\n"  # never typed into the shell
    assert typed == "completed" and "typed-42" in echoed  # an ordinary line: full access runs it
    assert why  # the model reads why it was refused
