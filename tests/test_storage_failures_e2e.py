"""Storage failures end to end, `heron acp` on real stdio: a full disk (a file size limit on the
process), a ``sessions.db`` that is garbage or a folder, a ``HERON_HOME`` that cannot be
written. Every prompt is still answered; the user is told that the history is not being saved
and why, or where the unreadable one went (moved aside, byte for byte); stderr gets single log
lines, never a traceback; ``heron doctor`` reports what it finds."""

from __future__ import annotations

import re
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.editor import FakeEditor
from tests.support.raw import RawAgent
from tests.support.scripted_model import call, scripted
from tests.support.session_load import load, reopen
from tests.support.updates import tool_updates

NOTICES = {"session": {"notices": {}}}
MOVED = re.compile(r"moved to (\S+\.db), unchanged")
HERON_COMMAND = [sys.executable, "-c", "from acp_server.cli import main; raise SystemExit(main())"]


def file_size_limit(size: int) -> Callable[[], None]:
    """For the child: files it writes stop growing at ``size`` bytes (EFBIG), as on a full disk."""

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return apply


def said(updates: list[dict[str, Any]]) -> list[str]:
    """What the user was told aside from the reply: notices, and notices shown as messages."""
    told: list[str] = []
    for u in updates:
        if u["sessionUpdate"] == "notice":
            told.append(f"{u['title']}: {u.get('description', '')}")
        elif u["sessionUpdate"] == "agent_message_chunk" and u["messageId"].startswith("notice-"):
            told.append(u["content"]["text"].strip().strip("_"))
    return told


def told_after_opening(agent: RawAgent, session_id: str, title: str) -> str:
    """The notice that follows a session's opening answer (it comes once the answer is out)."""

    def about(message: dict[str, Any]) -> bool:
        if message.get("method") != "session/update":
            return False
        params = message["params"]
        return params["sessionId"] == session_id and any(
            text.startswith(title) for text in said([params["update"]])
        )

    return said([agent.wait_for(about)["params"]["update"]])[0]


def clean_stderr(agent: RawAgent) -> str:
    """stderr once the agent has exited; it must hold log lines only."""
    text = agent.stderr.decode()
    assert "Traceback" not in text and "Logging error" not in text, text
    assert all(line.startswith("heron: ") for line in text.splitlines()), text
    return text


def doctor(env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    home = tmp_path / "user"  # the editors' settings doctor reads: none
    home.mkdir(exist_ok=True)
    return subprocess.run(
        [*HERON_COMMAND, "doctor"],
        env={**env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_with_no_room_to_write_every_prompt_is_answered_and_the_user_told_why(
    agent_env: dict[str, str], workspace: Path, heron_home: Path
) -> None:
    with RawAgent(agent_env, preexec=file_size_limit(0)) as agent:
        first = agent.start_session(workspace, NOTICES)
        notice = told_after_opening(agent, first, "History not saved")
        stops = [agent.prompt(first, f"prompt {n}") for n in range(2)]
        second = agent.new_session(workspace)  # each session hears why, once
        told_after_opening(agent, second, "History not saved")
        stop, updates = agent.prompt(second, "one more")
        listed = agent.request("session/list", {})  # nothing to list: the answer says why
        assert agent.close() == 0
    assert listed["error"]["code"] == -32603
    assert listed["error"]["message"].startswith("The session history is unavailable: ")
    assert f"{heron_home / 'sessions.db'}: disk I/O error" in notice
    assert "the file size limit is 0 bytes" in notice
    assert [stop for stop, _ in stops] == ["end_turn", "end_turn"] and stop == "end_turn"
    assert all(not said(updates) for _, updates in stops) and not said(updates)
    replies = "".join(
        u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"
    )
    assert replies.endswith("one more")
    stderr = clean_stderr(agent)
    assert stderr.count("logging to stderr only") == 1  # the log file is given up once
    assert "is not being saved" in stderr


def test_a_disk_that_fills_up_mid_session_leaves_the_saved_part_loadable(
    agent_env: dict[str, str], workspace: Path
) -> None:
    with RawAgent(agent_env, preexec=file_size_limit(1_000_000)) as agent:
        session_id = agent.start_session(workspace)
        first, saved = agent.prompt(session_id, "a short one")
        big, filled = agent.prompt(session_id, "y" * 600_000)  # more than the disk has left
        after, later = agent.prompt(session_id, "and another")
        assert agent.close() == 0
    assert (first, big, after) == ("end_turn", "end_turn", "end_turn")
    assert not said(saved) and not said(later)
    [notice] = said(filled)
    assert notice.startswith("History not saved") and "file size limit" in notice
    clean_stderr(agent)

    with RawAgent(agent_env) as agent:  # a fresh process, with room again
        replayed, response = reopen(agent, session_id, workspace)
        assert "result" in response
        stop, _ = agent.prompt(session_id, "where were we?")
    prompts = [u["content"]["text"] for u in replayed if u["sessionUpdate"] == "user_message_chunk"]
    assert prompts == ["a short one"] and stop == "end_turn"  # what was saved, and no gap


def garbage(db: Path) -> list[Path]:
    db.write_bytes(b"these are not the droids\x00\xff" * 500)
    Path(f"{db}-wal").write_bytes(b"nor this\n" * 10)
    return [db, Path(f"{db}-wal")]


def folder(db: Path) -> list[Path]:
    db.mkdir()
    (db / "notes.txt").write_text("mine\n")
    return [db / "notes.txt"]


@pytest.mark.parametrize("make", [garbage, folder])
def test_an_unreadable_sessions_db_is_moved_aside_and_a_fresh_history_started(
    agent_env: dict[str, str],
    workspace: Path,
    heron_home: Path,
    make: Callable[[Path], list[Path]],
) -> None:
    db = heron_home / "sessions.db"
    kept = {path: path.read_bytes() for path in make(db)}
    with RawAgent(agent_env) as agent:
        first = agent.start_session(workspace)
        notice = told_after_opening(agent, first, "Session history restarted")
        stop, updates = agent.prompt(first, "hello")
        second = agent.new_session(workspace)
        _, again = agent.prompt(second, "hello again")
        assert agent.close() == 0
    found = MOVED.search(notice)
    assert found is not None and f"{db} could not be read" in notice, notice
    aside = Path(found.group(1))
    assert aside.parent == heron_home and aside.name.startswith("sessions-unreadable-")
    for path, data in kept.items():  # every byte is still there, under the new name
        moved = Path(str(path).replace(str(db), str(aside)))
        assert moved.read_bytes() == data
    assert stop == "end_turn" and not said(updates) and not said(again)  # told once, saved
    assert str(aside) in clean_stderr(agent)

    with RawAgent(agent_env) as agent:  # the fresh history works
        agent.initialize()
        listed = agent.request("session/list", {"cwd": str(workspace)})["result"]["sessions"]
        replayed, _ = load(agent, first, workspace)
        assert agent.drain(quiet=0.3) == []  # nothing more to say about the store
    assert {s["sessionId"] for s in listed} == {first, second}
    prompts = [u["content"]["text"] for u in replayed if u["sessionUpdate"] == "user_message_chunk"]
    assert prompts == ["hello"]


def test_doctor_reports_an_unreadable_history_then_what_was_moved_aside(
    agent_env: dict[str, str], workspace: Path, heron_home: Path, tmp_path: Path
) -> None:
    db = heron_home / "sessions.db"
    garbage(db)
    before = doctor(agent_env, tmp_path)
    assert before.returncode == 1, before.stdout
    assert f"[!!] history: {db} cannot be read (file is not a database)" in before.stdout
    assert "moves it aside, unchanged" in before.stdout and before.stderr == ""

    with RawAgent(agent_env) as agent:
        agent.start_session(workspace)
        assert agent.close() == 0
    [aside] = heron_home.glob("sessions-unreadable-*.db")
    after = doctor(agent_env, tmp_path)
    assert f"[ok] history: {db} (1 session)" in after.stdout, after.stdout
    assert f"[--] history: {aside} was moved aside" in after.stdout


def test_an_unwritable_heron_home_costs_the_saving_never_the_session(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    """HERON_HOME under a regular file: no history, no log file, no remembered answers, no
    checkpoints. The turn runs its command and its edit; each loss is said once."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    home = blocker / "heron"
    (workspace / "notes.txt").write_text("one\n")
    env = scripted(
        {**agent_env, "HERON_HOME": str(home)},
        tmp_path,
        call("terminal", command="echo first > first.txt"),
        call("read_file", path="notes.txt"),
        call("edit_file", path="notes.txt", edits=[{"old_string": "one", "new_string": "two"}]),
        call("terminal", command="echo second > second.txt"),
    )
    with FakeEditor(env, terminal=False) as editor:
        session_id = editor.start_session(workspace, NOTICES)
        notice = told_after_opening(editor, session_id, "History not saved")
        editor.answers.append("allow_always")
        stop, updates = editor.prompt(session_id, "run, edit, run")
        asked = [r for r in editor.requests if r["method"] == "session/request_permission"]
        assert editor.close() == 0
    assert f"{home / 'sessions.db'}: {blocker} is a file, where a folder should be" in notice
    assert stop == "end_turn"
    assert (workspace / "first.txt").exists() and (workspace / "second.txt").exists()
    assert (workspace / "notes.txt").read_text() == "two\n"
    assert len(asked) == 2  # the first command and the edit; "always" held for the second
    assert all(u["status"] == "completed" for u in final_updates(tool_updates(updates)))
    told = said(updates)
    assert [t.split(":")[0] for t in told] == ["Answer not saved", "Checkpoint"], told
    assert str(home) in told[0] and "later sessions will ask again" in told[0]
    assert "No checkpoint for this turn: Not a directory" in told[1]
    stderr = clean_stderr(editor)
    assert stderr.count(f"cannot write logs to {home / 'logs'}") == 1

    checked = doctor({**agent_env, "HERON_HOME": str(home)}, tmp_path)
    assert f"[!!] home: cannot write {home} ({blocker} is a file, where a" in checked.stdout


def final_updates(calls: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [next(u for u in reversed(c) if "status" in u) for c in calls.values()]


def test_login_into_an_unwritable_home_says_so_and_changes_nothing(
    agent_env: dict[str, str], tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    home = tmp_path / "full"
    home.mkdir()
    for heron_home, limit in ((blocker / "heron", None), (home, 0)):
        done = subprocess.run(
            [*HERON_COMMAND, "login", "--provider", "anthropic"],
            env={**agent_env, "HERON_HOME": str(heron_home)},
            input="sk-ant-secret\n",
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            preexec_fn=None if limit is None else file_size_limit(limit),
        )
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert f"cannot write {heron_home / 'config.toml'}" in done.stdout, done.stdout
        assert "nothing changed" in done.stdout and "sk-ant-secret" not in done.stdout
    assert [p.name for p in home.iterdir()] == []  # no half-written file left behind
    assert blocker.read_text() == "not a folder\n"
