"""Session export end to end: a real ``heron acp`` with the scripted model runs a turn with a
plan, a tool call and thoughts; ``heron export`` then writes it in each format as a separate
process, and ``/export`` writes it into the workspace through the editor, asked about as an
edit is."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio

from agent_core.sessions.sqlite import SqliteSessionStore
from agent_core.sessions.store import SessionRecord
from tests.support.editor import FakeEditor
from tests.support.permissions import questions
from tests.support.scripted_model import call, scripted
from tests.support.updates import final, text_of, tool_updates

PLAN = [
    {"content": "Read the README", "status": "in_progress", "priority": "high"},
    {"content": "Say what it holds", "status": "pending", "priority": "medium"},
]
TURN = (
    [{"thinking": "The README first."}, *call("todo", items=PLAN)],
    call("read_file", path="README.md"),
    [{"text": "The README is a heading: **sample**."}],
)


def a_stored_session(env: dict[str, str], workspace: Path) -> str:
    """One turn in ask mode (a plan, a read, thoughts, an answer), the agent closed: its id."""
    with FakeEditor(env) as editor:
        editor.initialize()
        session_id = editor.new_session(workspace)
        stop, updates = editor.prompt(session_id, "What is in the README?")
    assert stop == "end_turn" and "**sample**" in text_of(updates)
    return session_id


HERON_CLI = "import sys; from acp_server.cli import main; raise SystemExit(main(sys.argv[1:]))"


def export(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``heron export`` with ``args``, as a process of its own."""
    command = [sys.executable, "-c", HERON_CLI, "export", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=30, check=False)


def check_sharegpt(record: dict[str, Any]) -> None:
    """Hermes' trajectory shape: a system turn with the tools, then human, gpt and tool turns
    in an order a chat template accepts, every tool call answered by a tool response."""
    turns = record["conversations"]
    assert all(set(t) == {"from", "value"} and isinstance(t["value"], str) for t in turns)
    assert turns[0]["from"] == "system" and "<tools>" in turns[0]["value"]
    allowed = {"system": {"human"}, "human": {"gpt"}, "gpt": {"human", "tool"}, "tool": {"gpt"}}
    for before, after in itertools.pairwise(turns):
        assert after["from"] in allowed[before["from"]], (before, after)
    calls: list[str] = []
    for before, turn in itertools.pairwise(turns):
        if turn["from"] == "gpt":
            assert turn["value"].startswith("<think>\n")
            for piece in turn["value"].split("<tool_call>\n")[1:]:
                called = json.loads(piece.split("\n</tool_call>")[0])
                assert set(called) == {"name", "arguments"}
                calls.append(called["name"])
        elif turn["from"] == "tool":
            assert "<tool_call>" in before["value"]
            pieces = turn["value"].split("<tool_response>\n")[1:]
            answered = [json.loads(p.split("\n</tool_response>")[0]) for p in pieces]
            assert all(set(a) == {"tool_call_id", "name", "content"} for a in answered)
            assert [a["name"] for a in answered] == calls[-len(answered) :]
    assert calls == ["todo", "read_file"]
    assert turns[-1]["from"] == "gpt" and record["completed"] is True


def test_heron_export_writes_a_stored_session_in_each_format(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    env = scripted(agent_env, tmp_path, *TURN)
    session_id = a_stored_session(env, workspace)

    markdown = export(env, session_id, "--format", "markdown")
    assert markdown.returncode == 0, markdown.stderr
    text = markdown.stdout
    assert text.startswith("# What is in the README?\n") and f"`{workspace}`" in text
    assert "## Prompt 1\n\n> What is in the README?" in text
    assert "<summary>Thinking</summary>\n\nThe README first." in text
    assert "<summary>Tool: <code>read_file</code> README.md (done)</summary>" in text
    assert "# sample" in text  # the file as the tool read it
    assert "The README is a heading: **sample**." in text
    assert "## Plan\n\n- [~] Read the README\n- [ ] Say what it holds" in text
    assert "- Context: " in text and "tokens" in text

    jsonl = export(env, session_id[:8], "--format", "jsonl")  # the start of its id will do
    assert jsonl.returncode == 0, jsonl.stderr
    header, *items = [json.loads(line) for line in jsonl.stdout.splitlines()]
    assert header["type"] == "session" and header["sessionId"] == session_id
    assert header["cwd"] == str(workspace) and header["model"] == env["HERON_MODEL"]
    kinds = [item["sessionUpdate"] for item in items]
    assert kinds[0] == "user_message_chunk" and {"plan", "usage_update"} <= set(kinds)
    read = next(i for i in items if i["sessionUpdate"] == "tool_call" and i["kind"] == "read")
    assert read["rawInput"] == {"path": "README.md"}

    out = tmp_path / "trajectories" / "one.json"
    sharegpt = export(env, session_id, "--out", str(out))  # the format from the suffix
    assert sharegpt.returncode == 0 and sharegpt.stdout == "" and str(out) in sharegpt.stderr
    record = json.loads(out.read_text())
    assert record["id"] == session_id and out.read_text().count("\n") == 1
    check_sharegpt(record)
    tool_turns = [t["value"] for t in record["conversations"] if t["from"] == "tool"]
    assert "Plan updated" in tool_turns[0] and "# sample" in tool_turns[1]

    unknown = export(env, "no-such-session")
    assert unknown.returncode == 2 and "no session 'no-such-session'" in unknown.stderr
    bad = export(env, session_id, "--format", "pdf")
    assert bad.returncode == 2 and "invalid choice: 'pdf'" in bad.stderr


def test_a_start_of_an_id_names_one_session_or_is_refused(
    agent_env: dict[str, str], heron_home: Path, tmp_path: Path
) -> None:
    async def store_two() -> None:
        store = SqliteSessionStore(heron_home / "sessions.db")
        for session_id in ("abc-1", "abc-2", "abd-3"):
            await store.create(SessionRecord(session_id, tmp_path, title=f"session {session_id}"))
        await store.close()

    anyio.run(store_two)
    one = export(agent_env, "abd")
    assert one.returncode == 0 and one.stdout.startswith("# session abd-3\n")
    exact = export(agent_env, "abc-1", "--format", "jsonl")
    assert exact.returncode == 0 and json.loads(exact.stdout)["sessionId"] == "abc-1"
    two = export(agent_env, "abc")
    assert two.returncode == 2 and two.stdout == ""
    assert "'abc' starts more than one session id: abc-1, abc-2" in two.stderr
    empty = export(agent_env, "")
    assert empty.returncode == 2 and "no session ''" in empty.stderr


def test_nothing_stored_yet_is_a_usage_error(agent_env: dict[str, str], heron_home: Path) -> None:
    result = export(agent_env, "abc")
    assert result.returncode == 2 and "nothing is stored yet" in result.stderr
    assert not (heron_home / "sessions.db").exists()  # an export makes no history


def test_export_in_the_editor_asks_like_a_write_and_writes_when_allowed(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    env = scripted(agent_env, tmp_path, *TURN)
    with FakeEditor(env) as editor:
        editor.initialize()
        session_id = editor.new_session(workspace)
        editor.prompt(session_id, "What is in the README?")

        editor.answers.append("reject_once")
        _, rejected = editor.prompt(session_id, "/export")
        [asked] = questions(editor)
        default = workspace / f"heron-session-{session_id[:8]}.md"
        assert not default.exists() and editor.writes == []
        assert text_of(rejected).startswith("Not exported: The user rejected this edit.")
        [export_call] = tool_updates(rejected).values()
        assert final(export_call)["status"] == "failed"

        editor.answers.append("allow_once")
        _, allowed = editor.prompt(session_id, "/export sharegpt out/session.json")
        asked = questions(editor)[-1]
        written = workspace / "out" / "session.json"
        diff = asked["toolCall"]["content"][0]
        assert asked["toolCall"]["kind"] == "edit" and diff["type"] == "diff"
        assert diff["path"] == str(written) and diff["oldText"] is None
        assert editor.writes[-1][0] == str(written)  # through the editor's write
        assert text_of(allowed).startswith(
            "Exported this session as sharegpt to `out/session.json`"
        )
        check_sharegpt(json.loads(written.read_text()))

        editor.answers.append("allow_once")
        editor.prompt(session_id, "/export")
        assert "The README is a heading" in default.read_text()

        asked_before = len(questions(editor))
        _, outside = editor.prompt(session_id, f"/export {tmp_path / 'elsewhere.md'}")
        assert text_of(outside).startswith("Not exported: ") and "outside the workspace" in (
            text_of(outside)
        )
        _, usage = editor.prompt(session_id, "/export pdf")
        assert text_of(usage).startswith("Usage: /export [markdown | jsonl | sharegpt] [path]")
        editor.prompt(session_id, "/mode plan")
        _, planned = editor.prompt(session_id, "/export jsonl")
        assert "Refused: " in text_of(planned) and "plan mode" in text_of(planned)
        assert len(questions(editor)) == asked_before  # none of these asked
        assert not (tmp_path / "elsewhere.md").exists()
        assert not (workspace / f"heron-session-{session_id[:8]}.jsonl").exists()
