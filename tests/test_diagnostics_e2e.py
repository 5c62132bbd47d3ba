"""Diagnostics after edits, end to end over real stdio with real language servers (``ruff
server`` and basedpyright, from the project's dev dependencies) and the fake model server: the
new error an edit makes reaches the next model request; one that was there before does not;
a fix clears it; the editor's own diagnostics win where it offers them; a missing or hanging
server costs the turn its wait and one notice."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.editor import FakeEditor
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall
from tests.support.llm_requests import last_result

BIN = Path(sys.executable).parent
SERVERS = {
    "ruff": ([str(BIN / "ruff"), "server"], "Undefined name `fresh_missing`"),
    "basedpyright": (
        [str(BIN / "basedpyright-langserver"), "--stdio"],
        '"fresh_missing" is not defined',
    ),
}
BEFORE = "x = 1\nprint(stale_missing)\n"  # an error before any edit
HANGING = (
    "import sys, time; print('hanging server started', file=sys.stderr, flush=True); time.sleep(60)"
)


def configure(home: Path, command: list[str], *, first_wait: float = 20.0) -> None:
    (home / "config.toml").write_text(
        f"[diagnostics]\nfirst_wait = {first_wait}\nwait = 5.0\n"
        f"[diagnostics.servers.test]\ncommand = {json.dumps(command)}\nextensions = ['.py']\n"
    )


def edit(old: str, new: str) -> ToolCall:
    return ToolCall(
        "edit_file", {"path": "app.py", "edits": [{"old_string": old, "new_string": new}]}
    )


def run(
    env: dict[str, str], workspace: Path, fake: FakeLLM, editor: FakeEditor | None = None
) -> list[dict[str, Any]]:
    fake.enqueue(
        Reply((ToolCall("read_file", {"path": "app.py"}),)),
        Reply((edit("x = 1\n", "x = 1\nprint(fresh_missing)\n"),)),
        Reply((edit("print(fresh_missing)\n", "print(x)\n"),)),
        Reply((Text("Done."),)),
    )
    agent = editor or FakeEditor(env)
    with agent:
        session_id = agent.start_session(
            workspace, {"_meta": {"heron": {"diagnostics": True}}} if editor else None
        )
        stop, updates = agent.prompt(session_id, "add a print, then take it back")
    assert stop == "end_turn"
    return updates


@pytest.mark.parametrize("server", list(SERVERS))
def test_an_edits_new_error_reaches_the_model_and_its_fix_clears_it(
    server: str, env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM
) -> None:
    command, expected = SERVERS[server]
    configure(heron_home, command)
    (workspace / "app.py").write_text(BEFORE)
    updates = run(env, workspace, fake)
    after_edit = last_result(fake.requests[2].body)
    assert expected in after_edit and "app.py:2:7: error" in after_edit
    assert "stale_missing" not in after_edit  # there before the edit: not new
    after_fix = last_result(fake.requests[3].body)
    assert after_fix.endswith("No new errors from test.")
    shown = [
        c["content"]["text"]
        for u in updates
        if u["sessionUpdate"] == "tool_call_update"
        for c in u.get("content") or []
        if c["type"] == "content"
    ]
    assert any(expected in text for text in shown)  # the editor's tool call shows them too


def test_the_editors_own_diagnostics_are_preferred(
    env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM
) -> None:
    configure(heron_home, SERVERS["ruff"][0])
    (workspace / "app.py").write_text(BEFORE)
    editor = FakeEditor(env)

    def diagnose(path: Path) -> list[dict[str, Any]]:
        return [
            {
                "range": {"start": {"line": n, "character": 0}},
                "severity": "error",
                "message": f"editor says {line.strip()} is wrong",
                "source": "vscode",
            }
            for n, line in enumerate(path.read_text().splitlines())
            if "missing" in line
        ]

    editor.diagnose = diagnose
    run(env, workspace, fake, editor)
    after_edit = last_result(fake.requests[2].body)
    assert "the editor reports 1 new problem" in after_edit
    assert "app.py:2:1: error: editor says print(fresh_missing) is wrong [vscode]" in after_edit
    assert last_result(fake.requests[3].body).endswith("No new errors from the editor.")
    asked = [r for r in editor.requests if r["method"] == "_heron/diagnostics"]
    assert len(asked) == 4 and [r["params"]["settleMs"] > 0 for r in asked] == [False, True] * 2
    log = heron_home / "logs" / "language-servers.log"
    assert not log.exists() or not log.read_text()  # Heron's own server never ran


@pytest.mark.parametrize("broken", ["missing", "hanging"])
def test_a_missing_or_hanging_server_costs_one_wait_and_one_notice(
    broken: str, env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM
) -> None:
    command = (
        ["/nonexistent/language-server"] if broken == "missing" else [sys.executable, "-c", HANGING]
    )
    configure(heron_home, command, first_wait=1.0)
    (workspace / "app.py").write_text(BEFORE)
    updates = run(env, workspace, fake)
    if broken == "hanging":  # one start and one wait, not one per edit
        log = (heron_home / "logs" / "language-servers.log").read_text()
        assert log.count("hanging server started") == 1
    assert "Diagnostics unavailable" in last_result(fake.requests[2].body)
    assert "Diagnostics unavailable" in last_result(fake.requests[3].body)
    notices = [u for u in updates if u["sessionUpdate"] == "agent_message_chunk"]
    told = [u for u in notices if "No diagnostics from test" in u["content"]["text"]]
    assert len(told) == 1
