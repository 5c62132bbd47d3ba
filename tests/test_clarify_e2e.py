"""``clarify`` over real stdio, with the real provider SDKs against the fake model server:
through an editor with form elicitation, through one with only permission requests, and
through one with neither (the question is the reply); the answer reaches the model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.editor import FakeEditor
from tests.support.fake_llm import MODELS, FakeLLM, Reply, Text, ToolCall

COLOUR = ToolCall("clarify", {"question": "Which colour?", "choices": ["Blue", "Green"]})
NAME = ToolCall("clarify", {"question": "What should the module be called?"})


def sent(fake: FakeLLM, number: int) -> str:
    return json.dumps(fake.requests[number].body)


def tool_names(body: dict[str, Any]) -> set[str]:
    return {t.get("name") or t["function"]["name"] for t in body["tools"]}


def asked(editor: FakeEditor, method: str) -> list[dict[str, Any]]:
    return [r["params"] for r in editor.requests if r["method"] == method]


def test_an_elicited_answer_reaches_the_model(
    provider: str, agent_env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    fake.enqueue(Reply((COLOUR,)), Reply((Text("Green it is."),)))
    env = {**agent_env, **fake.environment(MODELS[provider])}
    with FakeEditor(env, elicitation=True) as editor:
        editor.elicitations.append({"action": "accept", "content": {"answer": "Green"}})
        session_id = editor.start_session(workspace)
        stop, updates = editor.prompt(session_id, "paint it")
    assert stop == "end_turn"
    [form] = asked(editor, "elicitation/create")
    assert form["sessionId"] == session_id and form["mode"] == "form"
    assert form["message"] == "Which colour?"
    assert asked(editor, "session/request_permission") == []
    assert "The user answered: Green" in sent(fake, 1)
    [call] = [u for u in updates if u["sessionUpdate"] == "tool_call"]
    assert form["toolCallId"] == call["toolCallId"]
    seen = [u for u in updates if u.get("toolCallId") == call["toolCallId"]]
    assert [u["title"] for u in seen if "title" in u][-1] == "Which colour?"
    assert seen[-1]["status"] == "completed"
    screens = [u["content"][0]["content"]["text"] for u in seen if u.get("content")]
    assert screens[-1] == "Which colour?\n1. Blue\n2. Green\n\nThe user answered: Green"


@pytest.mark.parametrize(
    ("action", "told"),
    [
        ("decline", "The user declined to answer."),
        ("cancel", "The user dismissed the question without answering."),
    ],
)
def test_a_declined_or_dismissed_form_is_told_to_the_model(
    action: str, told: str, env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    fake.enqueue(Reply((NAME,)), Reply((Text("I will pick a name myself."),)))
    with FakeEditor(env, elicitation=True) as editor:
        editor.elicitations.append({"action": action})
        stop, _ = editor.prompt(editor.start_session(workspace), "add a module")
    assert stop == "end_turn"
    [form] = asked(editor, "elicitation/create")
    assert "oneOf" not in form["requestedSchema"]["properties"]["answer"]
    assert told in sent(fake, 1)


def test_without_elicitation_the_choices_are_a_permission_request(
    agent_env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    fake.enqueue(Reply((COLOUR,)), Reply((Text("Blue, then."),)))
    with FakeEditor({**agent_env, **fake.environment(MODELS["openai"])}) as editor:
        editor.answers.append("choice-0")
        stop, _ = editor.prompt(editor.start_session(workspace), "paint it")
    assert stop == "end_turn"
    assert asked(editor, "elicitation/create") == []
    [permission] = asked(editor, "session/request_permission")
    assert [o["name"] for o in permission["options"]] == ["Blue", "Green", "Skip"]
    assert "The user answered: Blue" in sent(fake, 1)


def test_with_no_way_to_ask_the_question_ends_the_turn_and_the_next_prompt_answers(
    provider: str, agent_env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    fake.enqueue(Reply((NAME,)), Reply((Text("Creating heron_tools.py."),)))
    with FakeEditor({**agent_env, **fake.environment(MODELS[provider])}) as editor:
        session_id = editor.start_session(workspace)
        stop, updates = editor.prompt(session_id, "add a module")
        assert stop == "end_turn" and len(fake.requests) == 1
        shown = "".join(
            u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"
        )
        assert shown == "What should the module be called?"
        stop, _ = editor.prompt(session_id, "Call it heron_tools")
    assert stop == "end_turn"
    assert editor.requests == []  # nothing was asked of the editor
    second = sent(fake, 1)
    assert "the user's answer will be the next prompt" in second
    question = second.rindex("What should the module be called?")
    assert question < second.index("Call it heron_tools")
    messages = fake.requests[1].body.get("messages") or fake.requests[1].body["input"]
    assert "Call it heron_tools" in json.dumps(messages[-1])
    assert "What should the module be called?" in json.dumps(messages[-2])


def test_plan_mode_keeps_clarify(
    agent_env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM
) -> None:
    (heron_home / "config.toml").write_text('default_mode = "plan"\n')
    fake.enqueue(Reply((COLOUR,)), Reply((Text("Planning for blue."),)))
    with FakeEditor(
        {**agent_env, **fake.environment(MODELS["openai-chat"])}, elicitation=True
    ) as editor:
        editor.elicitations.append({"action": "accept", "content": {"answer": "Blue"}})
        editor.initialize()
        response = editor.request("session/new", {"cwd": str(workspace), "mcpServers": []})
        assert response["result"]["modes"]["currentModeId"] == "plan"
        stop, _ = editor.prompt(response["result"]["sessionId"], "plan the paint job")
    assert stop == "end_turn"
    assert "clarify" in tool_names(fake.requests[0].body)
    assert "The user answered: Blue" in sent(fake, 1)


def test_session_cancel_while_the_user_is_asked_cancels_the_turn(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    fake.enqueue(Reply((COLOUR,)), Reply((Text("never asked for"),)))
    with FakeEditor(env, elicitation=True) as editor:
        editor.elicitations.append(None)  # left open
        session_id = editor.start_session(workspace)
        editor.start_prompt(session_id, "paint it", request_id="p1")
        form = editor.wait_for(lambda m: m.get("method") == "elicitation/create", timeout=30)
        editor.notify("session/cancel", {"sessionId": session_id})
        withdrawn = editor.wait_for(lambda m: m.get("method") == "$/cancel_request")
        assert withdrawn["params"]["requestId"] == form["id"]
        editor.send(
            {"jsonrpc": "2.0", "id": form["id"], "error": {"code": -32800, "message": "cancelled"}}
        )
        answer = editor.wait_for(lambda m: m.get("id") == "p1" and "method" not in m)
    assert answer["result"]["stopReason"] == "cancelled"
    assert len(fake.requests) == 1
