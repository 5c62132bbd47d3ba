"""Rewind end to end: `heron acp` on real stdio, the real anthropic SDK against the fake model
server, commands in the real sandbox. Three prompts that edit files and run commands; a rewind
to before the second takes the files back byte for byte (created files gone, deleted files back,
a file the user changed since kept and named) and the conversation with them: the next model
request carries only the first exchange, a load in a new process replays only what remains.
Edit and resend does the same and answers the new text; a fork can start from a message; a
rewind during a turn is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.editor import FakeEditor
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall
from tests.support.permissions import full_access, questions
from tests.support.raw import RawAgent
from tests.support.sandbox import END_TO_END_SANDBOX
from tests.support.scripted_model import scripted
from tests.support.session_load import reopen
from tests.support.updates import a_message_chunk, text_of

pytestmark = END_TO_END_SANDBOX

WORDS = ("alpha", "bravo", "charlie", "delta", "echo")


@pytest.fixture
def env_model() -> str:
    return "anthropic:claude-test"


def files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


def send(editor: FakeEditor, session_id: str, text: str, message_id: str) -> list[dict[str, Any]]:
    params = {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
    response, updates = editor.exchange("session/prompt", {**params, "messageId": message_id})
    assert response["result"] == {"stopReason": "end_turn", "userMessageId": message_id}
    return updates


def three_prompts(editor: FakeEditor, fake: FakeLLM, workspace: Path) -> tuple[str, list[Any]]:
    """alpha writes a file and appends to a log; bravo edits, creates and deletes; charlie
    creates u.txt. The workspace after each, and the session's id."""
    (workspace / "a.txt").write_text("a0\n")
    (workspace / "gone.txt").write_text("g0\n")
    steps = [
        (ToolCall("write_file", {"path": "p1.txt", "content": "one\n"}), "echo 1 >> log.txt"),
        (
            ToolCall(
                "edit_file", {"path": "a.txt", "edits": [{"old_string": "a0", "new_string": "a2"}]}
            ),
            "rm gone.txt; echo 2 >> log.txt; echo new > new.txt",
        ),
        (ToolCall("write_file", {"path": "u.txt", "content": "agent\n"}), "echo 3 >> log.txt"),
    ]
    session_id = full_access(editor, workspace)
    states = [files(workspace)]
    for number, (change, command) in enumerate(steps, 1):
        word = WORDS[number - 1]
        fake.enqueue(
            Reply((change, ToolCall("terminal", {"command": command}))),
            Reply((Text(f"did {word}"),)),
        )
        send(editor, session_id, word, f"p{number}")
        states.append(files(workspace))
    return session_id, states


def user_texts(body: dict[str, Any]) -> str:
    """Every text the user's side of an Anthropic request holds (prompts, results, notes)."""
    texts: list[str] = []
    for message in body["messages"]:
        for block in message["content"]:
            if isinstance(block, dict):
                texts.append(str(block.get("text", "")) + str(block.get("content", "")))
    return "\n".join(texts)


def test_rewind_to_before_the_second_prompt_takes_back_files_and_conversation(
    env: dict[str, str], fake: FakeLLM, workspace: Path
) -> None:
    with FakeEditor(env, terminal=False) as editor:
        session_id, states = three_prompts(editor, fake, workspace)
        (workspace / "u.txt").write_text("the user's\n")  # changed since the agent wrote it
        asked = len(questions(editor))
        response, shown = editor.exchange(
            "session/rewind",
            {"sessionId": session_id, "toMessageId": "p2", "_meta": {"heron": {"restore": "both"}}},
        )
        result = response["result"]
        [question] = questions(editor)[asked:]  # the restore's one question, with its preview
        assert [o["name"] for o in question["options"]] == ["Restore these files", "Cancel"]
        assert any(u["sessionUpdate"] == "tool_call" for u in shown)
        assert "Kept u.txt: changed since the agent wrote it" in result["_meta"]["heron"]["files"]
        assert result["lastMessageId"] and result["remainingMessageCount"] >= 2
        after = files(workspace)
        assert after.pop("u.txt") == b"the user's\n"
        assert after == states[1]  # new.txt gone, gone.txt back, a.txt and log.txt as before

        fake.enqueue(Reply((Text("did delta"),)))
        send(editor, session_id, "delta", "p4")
        sent = user_texts(fake.requests[-1].body)
        assert "alpha" in sent and "delta" in sent
        assert "bravo" not in sent and "charlie" not in sent
        assistant = [m for m in fake.requests[-1].body["messages"] if m["role"] == "assistant"]
        assert "did alpha" in str(assistant) and "did bravo" not in str(assistant)

    with FakeEditor(env, terminal=False) as editor:  # a fresh process
        replayed, _ = reopen(editor, session_id, workspace)
        said = text_of(replayed) + str(
            [u for u in replayed if "user_message" in u["sessionUpdate"]]
        )
        assert "alpha" in said and "did alpha" in said and "delta" in said
        assert "bravo" not in said and "charlie" not in said
        prompts = [u["messageId"] for u in replayed if u["sessionUpdate"] == "user_message_chunk"]
        assert prompts == ["p1", "p4"]


def test_edit_and_resend_rewinds_and_answers_the_new_text(
    env: dict[str, str], fake: FakeLLM, workspace: Path
) -> None:
    with FakeEditor(env, terminal=False) as editor:
        session_id, states = three_prompts(editor, fake, workspace)
        fake.enqueue(
            Reply((ToolCall("write_file", {"path": "e.txt", "content": "edited\n"}),)),
            Reply((Text("did echo"),)),
        )
        edit = {
            "sessionId": session_id,
            "messageId": "p2",
            "newContent": [{"type": "text", "text": "echo"}],
            "_meta": {"heron": {"restore": "both"}},
        }
        response, updates = editor.exchange("session/edit_prompt", edit)
        assert response["result"]["stopReason"] == "end_turn"
        assert response["result"]["userMessageId"] not in ("p1", "p2", "p3")
        assert "did echo" in text_of(updates)
        sent = user_texts(fake.requests[-2].body)  # the new turn's first request
        assert "alpha" in sent and "echo" in sent and "bravo" not in sent and "charlie" not in sent
        assert files(workspace) == {**states[1], "e.txt": b"edited\n"}


def test_rewind_by_slash_command_lists_then_takes_the_conversation_only(
    env: dict[str, str], fake: FakeLLM, workspace: Path
) -> None:
    with FakeEditor(env, terminal=False) as editor:
        session_id, states = three_prompts(editor, fake, workspace)
        _, listed = editor.prompt(session_id, "/rewind")
        assert "1. “alpha”" in text_of(listed) and "3. “charlie”" in text_of(listed)
        _, done = editor.prompt(session_id, "/rewind 3 conversation")
        assert "Rewound to before prompt 3 (“charlie”)" in text_of(done)
        assert files(workspace) == states[3]  # the files stay as they are
        fake.enqueue(Reply((Text("did delta"),)))
        editor.prompt(session_id, "delta")
        sent = user_texts(fake.requests[-1].body)
        assert "bravo" in sent and "charlie" not in sent and "/rewind" not in sent
        _, bad = editor.prompt(session_id, "/rewind 9")
        assert "Usage: /rewind <n>" in text_of(bad)


def test_a_fork_from_a_message_starts_with_the_conversation_up_to_there(
    env: dict[str, str], fake: FakeLLM, workspace: Path
) -> None:
    with FakeEditor(env, terminal=False) as editor:
        session_id, states = three_prompts(editor, fake, workspace)

        def fork(at: str) -> dict[str, Any]:
            meta = {"heron": {"toMessageId": at}}
            params = {"sessionId": session_id, "cwd": str(workspace), "mcpServers": []}
            return editor.request("session/fork", {**params, "_meta": meta})

        forked = fork("p2")["result"]["sessionId"]
        editor.drain(quiet=0.2)
        fake.enqueue(Reply((Text("did delta"),)))
        editor.prompt(forked, "delta")
        sent = user_texts(fake.requests[-1].body)
        assert "alpha" in sent and "bravo" not in sent and "charlie" not in sent
        assert files(workspace) == states[3]  # a fork leaves the files alone
        assert fork("nope")["error"]["code"] == -32602


def test_a_declined_restore_changes_nothing(
    env: dict[str, str], fake: FakeLLM, workspace: Path
) -> None:
    with FakeEditor(env, terminal=False) as editor:
        session_id, states = three_prompts(editor, fake, workspace)
        editor.answers.append("cancel")
        response, _ = editor.exchange(
            "session/rewind",
            {"sessionId": session_id, "toMessageId": "p1", "_meta": {"heron": {"restore": "both"}}},
        )
        assert response["error"]["code"] == -32001
        assert "declined" in response["error"]["message"]
        assert files(workspace) == states[3]
        fake.enqueue(Reply((Text("did delta"),)))
        send(editor, session_id, "delta", "p4")
        assert "charlie" in user_texts(fake.requests[-1].body)  # the conversation is whole


def test_rewind_during_a_turn_is_refused(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    env = scripted(agent_env, tmp_path, [{"text": "working"}, {"sleep": 30}])
    with RawAgent(env) as agent:
        session_id = agent.turn_under_way(workspace, "go", request_id="p", started=a_message_chunk)
        refused = agent.request("session/rewind", {"sessionId": session_id, "toMessageId": "x"})
        assert refused["error"]["code"] == -32001, refused
        assert "A prompt is running" in refused["error"]["message"]
        agent.notify("session/cancel", {"sessionId": session_id})
        assert agent.wait_for(lambda m: m.get("id") == "p")["result"]["stopReason"] == "cancelled"
        unknown = agent.request("session/rewind", {"sessionId": session_id, "toMessageId": "x"})
        assert unknown["error"]["code"] == -32602
        assert "no message 'x'" in unknown["error"]["message"]
