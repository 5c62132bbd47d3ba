"""Command output reaches the model and the store as the text a terminal shows: `heron acp`
(anthropic SDK against the fake LLM) runs a pytest-like script with the terminal tool, in the
editor's terminal and as a local process, in the real sandbox."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.support.editor import FakeEditor
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall

SCRIPT = r"""
import sys
for done in (10, 50, 100):
    sys.stdout.write("\rcollecting %3d%%" % done)
    sys.stdout.flush()
sys.stdout.write("\n")
print("tests/test_a.py::test_one \x1b[32mPASSED\x1b[0m")
print("\x1b]8;;https://docs.test/x\x1b\\the docs\x1b]8;;\x1b\\ \x1b[1m1 passed\x1b[0m")
"""
SHOWN = "collecting 100%\ntests/test_a.py::test_one PASSED\nthe docs 1 passed"


@pytest.mark.usefixtures("bubblewrap")
@pytest.mark.parametrize("in_editor", [True, False], ids=["editor-terminal", "local"])
def test_coloured_redrawn_output_reaches_the_model_and_the_store_as_plain_text(
    env: dict[str, str], workspace: Path, heron_home: Path, fake: FakeLLM, in_editor: bool
) -> None:
    (workspace / "progress.py").write_text(SCRIPT)
    fake.enqueue(
        Reply((ToolCall("terminal", {"command": "python3 progress.py"}),)),
        Reply((Text("All green."),)),
    )
    with FakeEditor(env, terminal=in_editor) as editor:
        session_id = editor.start_session(workspace, {})
        stop, _updates = editor.prompt(session_id, "run the tests")
        assert stop == "end_turn"
        if in_editor:  # the editor's terminal got the bytes as written, escapes and all
            [output] = editor._outputs.values()  # pyright: ignore[reportPrivateUsage]
            assert b"\x1b[32mPASSED" in output and b"\r" in output
        assert editor.close() == 0
    [result] = [
        b for b in fake.requests[1].body["messages"][-1]["content"] if b["type"] == "tool_result"
    ]
    content = result["content"]
    text = content if isinstance(content, str) else "".join(b["text"] for b in content)
    assert text == f"exit code 0\n{SHOWN}"
    stored = "".join(
        row[0]
        for table in ("messages", "transcript")
        for row in sqlite3.connect(heron_home / "sessions.db").execute(f"SELECT body FROM {table}")
    )
    assert json.dumps(SHOWN)[1:-1] in stored
    assert "\\u001b" not in stored and "\x1b" not in stored and "\\r" not in stored


@pytest.mark.usefixtures("bubblewrap")
def test_what_a_script_prints_reaches_the_model_as_plain_text(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    code = 'print("\\x1b[31mred\\x1b[0m 10%\\r100%")'
    fake.enqueue(Reply((ToolCall("execute_code", {"code": code}),)), Reply((Text("Done."),)))
    with FakeEditor(env) as editor:
        session_id = editor.start_session(workspace, {})
        stop, _updates = editor.prompt(session_id, "go")
        assert stop == "end_turn"
        assert editor.close() == 0
    [result] = [
        b for b in fake.requests[1].body["messages"][-1]["content"] if b["type"] == "tool_result"
    ]
    content = result["content"]
    text = content if isinstance(content, str) else "".join(b["text"] for b in content)
    assert text.endswith("\n100%10%") and "\x1b" not in text and "\r" not in text
