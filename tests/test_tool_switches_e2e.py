"""Tools switched off in config.toml (``[tools]``), end to end: `heron acp` (anthropic SDK
against the fake LLM) leaves them out of the request's tools, the system prompt's guidance,
``execute_code``'s ``heron_tools`` and what a subagent may have; per mode, and as the file
changes between prompts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.editor import FakeEditor
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall

EXECUTE_CODE_LINE = "write one execute_code script"
TERMINAL_LINE = "with terminal after changing code"


def tool_names(body: dict[str, Any]) -> set[str]:
    return {tool["name"] for tool in body.get("tools", [])}


def system(body: dict[str, Any]) -> str:
    return "".join(block["text"] for block in body["system"])


def tool_result(body: dict[str, Any]) -> str:
    [result] = [b for b in body["messages"][-1]["content"] if b["type"] == "tool_result"]
    content = result["content"]
    return content if isinstance(content, str) else "".join(b["text"] for b in content)


@pytest.fixture
def env_config() -> str:
    return '[tools]\ndisabled = ["execute_code", "web_fetch"]\n'


def test_switched_off_tools_are_not_offered_nor_named_in_the_guidance(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    fake.enqueue(Reply((Text("Hello."),)))
    with FakeEditor(env) as editor:
        session_id = editor.start_session(workspace, {})
        assert editor.prompt(session_id, "hi")[0] == "end_turn"
        assert editor.close() == 0
    body = fake.requests[0].body
    names = tool_names(body)
    assert {"read_file", "terminal", "web_search"} <= names  # the others stay
    assert not names & {"execute_code", "web_fetch"}
    assert EXECUTE_CODE_LINE not in system(body) and TERMINAL_LINE in system(body)


@pytest.mark.usefixtures("bubblewrap")
def test_a_script_and_a_subagent_get_no_tool_switched_off(
    env: dict[str, str], workspace: Path, heron_home: Path, fake: FakeLLM
) -> None:
    (heron_home / "config.toml").write_text('[tools]\ndisabled = ["web_fetch", "search"]\n')
    code = "import heron_tools as h\nprint(hasattr(h, 'search'), hasattr(h, 'read_file'))"
    fake.enqueue(
        Reply((ToolCall("execute_code", {"code": code}),)),
        Reply((ToolCall("delegate", {"task": "look", "tools": ["search"]}),)),
        Reply((Text("Done."),)),
    )
    with FakeEditor(env) as editor:
        session_id = editor.start_session(workspace, {})
        assert editor.prompt(session_id, "go")[0] == "end_turn"
        assert editor.close() == 0
    [execute_code] = [t for t in fake.requests[0].body["tools"] if t["name"] == "execute_code"]
    assert "heron_tools.read_file(" in execute_code["description"]
    assert "heron_tools.search(" not in execute_code["description"]
    assert tool_result(fake.requests[1].body).endswith("\nFalse True")
    refused = tool_result(fake.requests[2].body)
    assert "cannot have search" in refused and "read_file" in refused


@pytest.mark.parametrize("env_config", ['[tools.modes.plan]\ndisabled = ["terminal"]\n'])
def test_a_tool_switched_off_in_a_mode_follows_the_mode_and_the_file(
    env: dict[str, str], workspace: Path, heron_home: Path, fake: FakeLLM
) -> None:
    fake.enqueue(*(Reply((Text("Ok."),)) for _ in range(4)))
    with FakeEditor(env) as editor:
        session_id = editor.start_session(workspace, {})
        editor.request("session/set_mode", {"sessionId": session_id, "modeId": "plan"})
        assert editor.prompt(session_id, "plan it")[0] == "end_turn"
        editor.request("session/set_mode", {"sessionId": session_id, "modeId": "ask"})
        assert editor.prompt(session_id, "do it")[0] == "end_turn"
        (heron_home / "config.toml").write_text('[tools]\ndisabled = ["terminal"]\n')
        assert editor.prompt(session_id, "and now")[0] == "end_turn"
        (heron_home / "config.toml").write_text('[tools]\ndisabled = ["nonesuch"]\n')
        assert editor.prompt(session_id, "while the file is wrong")[0] == "end_turn"
        assert editor.close() == 0
    in_plan, in_ask, edited, wrong = (request.body for request in fake.requests)
    assert not tool_names(in_plan) & {"terminal", "process"}  # process goes with terminal
    assert TERMINAL_LINE not in system(in_plan)
    assert {"terminal", "process"} <= tool_names(in_ask) and TERMINAL_LINE in system(in_ask)
    assert "terminal" not in tool_names(edited) and TERMINAL_LINE not in system(edited)
    assert "terminal" not in tool_names(wrong)  # the last good reading stands
