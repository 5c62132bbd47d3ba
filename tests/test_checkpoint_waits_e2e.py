"""A repository is untrusted input: what it does to git never holds a turn. `heron acp` on real
stdio, the real anthropic SDK against the fake model server, commands in the real sandbox, real
git. A FIFO named ``.gitignore`` (planted before the session, or made by a sandboxed command
during a turn) and a git that hangs: ``session/cancel`` is answered within 1 s, the hung git is
killed with its children, the checkpoint is skipped with the file named, and the session goes on.
"""

from __future__ import annotations

import os
import shutil
import stat
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.editor import FakeEditor
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall
from tests.support.permissions import full_access
from tests.support.processes import sleep_marker, sleepers, wait_dead
from tests.support.sandbox import END_TO_END_SANDBOX
from tests.support.updates import text_of

pytestmark = END_TO_END_SANDBOX


CANCEL_WITHIN_S = 1.0


@pytest.fixture
def env_model() -> str:
    return "anthropic:claude-test"


def write(path: str, content: str) -> ToolCall:
    return ToolCall("write_file", {"path": path, "content": content})


def is_update(message: dict[str, Any], kind: str) -> bool:
    return (
        message.get("method") == "session/update"
        and message["params"]["update"]["sessionUpdate"] == kind
    )


def shows_a_diff(message: dict[str, Any]) -> bool:
    """The edit's diff is out: the tool goes on to its checkpoint next."""
    return is_update(message, "tool_call_update") and any(
        c.get("type") == "diff" for c in message["params"]["update"].get("content") or ()
    )


def wait_answering(editor: FakeEditor, predicate: Any, timeout: float = 15.0) -> dict[str, Any]:
    """The first message matching ``predicate``; the editor's requests meanwhile answered
    (the edit reads the file through the editor)."""
    deadline = time.monotonic() + timeout
    while True:
        message = editor.wait_for(lambda _: True, timeout=max(deadline - time.monotonic(), 0.01))
        if predicate(message):
            return message
        if "method" in message and "id" in message:
            editor.answer(message)


def cancel_and_time(editor: FakeEditor, session_id: str, request_id: str) -> tuple[str, float]:
    """Send ``session/cancel``; the prompt's stop reason and how long its answer took."""
    began = time.monotonic()
    editor.notify("session/cancel", {"sessionId": session_id})
    answer = editor.wait_for(lambda m: m.get("id") == request_id and "method" not in m)
    return answer["result"]["stopReason"], time.monotonic() - began


def said(updates: list[dict[str, Any]]) -> str:
    """Everything the user was told: the model's text, and notices (a message each here)."""
    return text_of(updates)


def test_a_fifo_gitignore_planted_before_the_session_never_holds_a_turn(
    env: dict[str, str], fake: FakeLLM, workspace: Path
) -> None:
    (workspace / "a.py").write_text("a = 1\n")
    (workspace / "sub").mkdir()
    os.mkfifo(workspace / "sub" / ".gitignore")
    with FakeEditor(env, terminal=False) as editor:
        session_id = full_access(editor, workspace)
        for n in (1, 2):  # found beside git's first walk, then known before git starts
            fake.enqueue(Reply((write(f"n{n}.py", f"n = {n}\n"),)), Reply((Text("done"),)))
            stop, updates = editor.prompt(session_id, f"write n{n}.py")
            assert stop == "end_turn"
            assert (workspace / f"n{n}.py").read_text() == f"n = {n}\n"  # the change is made
            told = said(updates)
            assert "No checkpoint for this turn" in told and "sub/.gitignore is a FIFO" in told

        fake.enqueue(Reply((write("b.py", "b = 1\n"),)))  # nothing after: cancelled before
        editor.start_prompt(session_id, "write b.py", request_id="later")
        wait_answering(editor, shows_a_diff)  # its checkpoint is next, the FIFO in the way
        stop, took = cancel_and_time(editor, session_id, "later")
        assert stop == "cancelled" and took < CANCEL_WITHIN_S, took
        editor.drain(quiet=0.2)

        fake.enqueue(Reply((Text("still here"),)))
        stop, updates = editor.prompt(session_id, "are you there?")
    assert stop == "end_turn" and "still here" in said(updates)


def test_a_fifo_gitignore_made_by_a_sandboxed_command_during_a_turn(
    env: dict[str, str], fake: FakeLLM, workspace: Path
) -> None:
    (workspace / "a.py").write_text("a = 1\n")
    (workspace / "sub").mkdir()
    with FakeEditor(env, terminal=False) as editor:
        session_id = full_access(editor, workspace)
        fake.enqueue(
            Reply(
                (
                    ToolCall("terminal", {"command": "mkfifo sub/.gitignore"}),
                    write("b.py", "b = 1\n"),
                )
            ),
            Reply((Text("done"),)),
        )
        editor.start_prompt(session_id, "make a FIFO, then edit", request_id="made")
        wait_answering(editor, lambda m: is_update(m, "agent_message_chunk"), timeout=30)
        # The turn's end records its checkpoint, and git waits on the FIFO made meanwhile.
        stop, took = cancel_and_time(editor, session_id, "made")
        assert stop == "cancelled" and took < CANCEL_WITHIN_S, took
        assert stat.S_ISFIFO(os.lstat(workspace / "sub" / ".gitignore").st_mode)
        assert (workspace / "b.py").read_text() == "b = 1\n"
        editor.drain(quiet=0.2)

        for n in (3, 4):  # found by a stall the first time, known before git starts the next
            fake.enqueue(Reply((write(f"n{n}.py", f"n = {n}\n"),)), Reply((Text("ok"),)))
            began = time.monotonic()
            stop, updates = editor.prompt(session_id, f"write n{n}.py")
            assert stop == "end_turn"
            assert (workspace / f"n{n}.py").read_text() == f"n = {n}\n"
            told = said(updates)
            assert "No checkpoint for this turn" in told and "sub/.gitignore is a FIFO" in told
        assert time.monotonic() - began < 5.0  # no git deadline was waited out


def test_a_turn_that_made_a_fifo_gitignore_ends_with_its_record_skipped_and_named(
    env: dict[str, str], fake: FakeLLM, workspace: Path
) -> None:
    (workspace / "sub").mkdir()
    with FakeEditor(env, terminal=False) as editor:
        session_id = full_access(editor, workspace)
        fake.enqueue(
            Reply(
                (
                    write("b.py", "b = 1\n"),  # the checkpoint is taken here, before the FIFO
                    ToolCall("terminal", {"command": "mkfifo sub/.gitignore"}),
                )
            ),
            Reply((Text("done"),)),
        )
        began = time.monotonic()
        stop, updates = editor.prompt(session_id, "write, then make a FIFO")
        took = time.monotonic() - began
    assert stop == "end_turn" and (workspace / "b.py").read_text() == "b = 1\n"
    told = said(updates)
    assert "The end of checkpoint 1 was not recorded" in told
    assert "sub/.gitignore is a FIFO" in told
    assert took < 10.0  # a stall and a walk, not git's deadline


def test_a_hanging_git_is_cancelled_within_a_second_and_leaves_no_process(
    env: dict[str, str], fake: FakeLLM, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "a.py").write_text("a = 1\n")
    folder, pids, hang = tmp_path / "bin", tmp_path / "pids", tmp_path / "hang"
    marker = sleep_marker(3135)
    folder.mkdir()
    real = shutil.which("git")
    (folder / "git").write_text(  # while `hang` exists, the shadow's calls hang, with a child
        f'#!/bin/sh\nif [ -n "$GIT_DIR" ] && [ -e "{hang}" ]; then\n'
        f'  sleep {marker} & echo $$ $! >> "{pids}"; wait\nfi\nexec "{real}" "$@"\n'
    )
    (folder / "git").chmod(0o755)

    def cancelled_while_git_hangs(editor: FakeEditor, session_id: str, request_id: str) -> None:
        deadline = time.monotonic() + 10
        while not pids.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        stop, took = cancel_and_time(editor, session_id, request_id)
        assert stop == "cancelled" and took < CANCEL_WITHIN_S, took
        hung = [int(p) for p in pids.read_text().split()]
        assert hung and wait_dead(hung, timeout=1.0) == []
        assert wait_dead(sleepers(marker), timeout=5) == []
        pids.unlink()
        editor.drain(quiet=0.2)

    env["PATH"] = f"{folder}{os.pathsep}{env['PATH']}"
    with FakeEditor(env, terminal=False) as editor:
        session_id = full_access(editor, workspace)
        fake.enqueue(Reply((write("b.py", "b = 1\n"),)), Reply((Text("ok"),)))
        assert editor.prompt(session_id, "write b.py")[0] == "end_turn"  # checkpoint 1

        hang.touch()
        fake.enqueue(Reply((write("c.py", "c = 1\n"),)))
        editor.start_prompt(session_id, "write c.py", request_id="turn")
        wait_answering(editor, shows_a_diff)
        cancelled_while_git_hangs(editor, session_id, "turn")

        editor.start_prompt(session_id, "/undo", request_id="undo")  # its plan runs git
        cancelled_while_git_hangs(editor, session_id, "undo")

        hang.unlink()
        fake.enqueue(Reply((Text("still here"),)))
        stop, updates = editor.prompt(session_id, "are you there?")
        assert stop == "end_turn" and "still here" in said(updates)
        stop, updates = editor.prompt(session_id, "/undo")  # git answers again
    assert stop == "end_turn" and "Deleted 1: b.py" in said(updates)
    assert not (workspace / "b.py").exists()
