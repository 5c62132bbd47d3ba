"""Sessions that survive: load in a fresh process replays what the editor saw; list, resume,
close, delete; a killed agent loses at most the reply it was writing."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.editor import FakeEditor
from tests.support.fake_llm import FakeLLM, Reply, Text
from tests.support.raw import RawAgent
from tests.support.scripted_model import call, scripted
from tests.support.session_load import load, reopen, updates_before
from tests.support.updates import a_message_chunk

REPLAYED = (
    "user_message_chunk",
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
)


def folded(updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the editor saw live, folded the way a replay shows it."""
    from acp_server.bridge.transcript import TranscriptBuilder, replay

    builder = TranscriptBuilder()
    for update in updates:
        builder.feed(update)
    stored = [json.dumps(item) for item in builder.drain(finished=True)]
    return [json.loads(item) for item in replay(stored)]


def wait_for_first_chunk(agent: RawAgent) -> None:
    """Until the reply being written has started to arrive."""
    agent.wait_for(a_message_chunk)


def test_a_loaded_session_replays_what_the_editor_saw(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    (workspace / "notes.txt").write_text("one\n")
    plan = [
        {"content": "read", "status": "completed"},
        {"content": "edit", "status": "in_progress"},
    ]
    env = scripted(
        agent_env,
        tmp_path,
        [{"thinking": "let me plan"}, {"text": "Planning."}, *call("todo", items=plan)],
        call("read_file", path="notes.txt"),
        call("edit_file", path="notes.txt", edits=[{"old_string": "one", "new_string": "two"}]),
    )
    with FakeEditor(env) as editor:
        session_id = editor.start_session(workspace)
        _, live = editor.prompt(session_id, "fix the notes")
    user = {
        "sessionUpdate": "user_message_chunk",
        "content": {"type": "text", "text": "fix the notes"},
    }
    usage = [u for u in live if u["sessionUpdate"] == "usage_update"][-1]  # the last one only
    expected = [user, *folded([u for u in live if u["sessionUpdate"] in REPLAYED]), usage]

    with FakeEditor(env) as editor:  # a fresh process
        replayed, response = reopen(editor, session_id, workspace)
        assert response["result"]["modes"]["currentModeId"] == "ask"
        assert editor.drain(quiet=0.5) == []  # nothing follows the load response
    assert replayed[0].pop("messageId")  # the prompt's id, which a rewind names
    assert replayed[:-1] == expected
    assert (
        replayed[-1]["sessionUpdate"] == "available_commands_update"
    )  # commands are part of the replay
    kinds = [u["sessionUpdate"] for u in replayed]
    assert kinds.count("tool_call") == 3 and kinds.count("plan") == 1
    diff = next(
        u
        for u in replayed
        if u["sessionUpdate"] == "tool_call_update"
        and u.get("content", [{}])[0].get("type") == "diff"
    )
    assert diff["status"] == "completed" and diff["content"][0]["newText"] == "two\n"


def test_a_loaded_session_continues_with_its_history(
    agent_env: dict[str, str], workspace: Path
) -> None:
    with FakeLLM() as fake:
        env = {**agent_env, **fake.environment("anthropic:claude-test")}
        fake.enqueue(Reply((Text("Noted: heron."),)), Reply((Text("The word was heron."),)))
        with RawAgent(env) as agent:
            session_id = agent.start_session(workspace)
            agent.prompt(session_id, "remember the word heron")
        with RawAgent(env) as agent:  # a fresh process
            agent.initialize()
            agent.request(
                "session/load", {"sessionId": session_id, "cwd": str(workspace), "mcpServers": []}
            )
            agent.drain(quiet=0.2)
            stop, _ = agent.prompt(session_id, "what was the word?")
        second = fake.requests[1].body["messages"]
    assert stop == "end_turn"
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    assert "remember the word heron" in json.dumps(second[0]) and "Noted: heron." in json.dumps(
        second[1]
    )


def test_resume_does_not_replay_and_keeps_the_mode(
    agent_env: dict[str, str], workspace: Path
) -> None:
    with RawAgent(agent_env) as agent:
        session_id = agent.start_session(workspace)
        agent.request("session/set_mode", {"sessionId": session_id, "modeId": "plan"})
        agent.prompt(session_id, "hello")
    with RawAgent(agent_env) as agent:
        agent.initialize()
        agent.send(
            {
                "jsonrpc": "2.0",
                "id": "r",
                "method": "session/resume",
                "params": {"sessionId": session_id, "cwd": str(workspace)},
            }
        )
        before, response = updates_before(agent, "r")
        assert response["result"]["modes"]["currentModeId"] == "plan"
        stop, _ = agent.prompt(session_id, "again")
    assert not [
        u
        for u in before
        if u["sessionUpdate"]
        in ("user_message_chunk", "agent_message_chunk", "agent_thought_chunk")
    ]
    assert stop == "end_turn"


def test_sessions_get_a_title_after_the_first_exchange(
    agent_env: dict[str, str], workspace: Path
) -> None:
    with RawAgent(agent_env) as agent:
        session_id = agent.start_session(workspace)
        _, updates = agent.prompt(session_id, "Fix the flaky login test\nand more details")
        _, again = agent.prompt(session_id, "second prompt")
        listed = agent.request("session/list", {"cwd": str(workspace)})["result"]["sessions"]
    [info] = [u for u in updates if u["sessionUpdate"] == "session_info_update"]
    assert info["title"] == "Fix the flaky login test" and info["updatedAt"].endswith("Z")
    assert not [u for u in again if u["sessionUpdate"] == "session_info_update"]
    assert listed[0]["title"] == "Fix the flaky login test" and listed[0]["sessionId"] == session_id


def test_list_pages_through_120_sessions_newest_first(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    with RawAgent(agent_env) as agent:
        created = [agent.start_session(workspace) for _ in range(120)]
        agent.new_session(other)
        seen: list[str] = []
        cursor = None
        pages = 0
        while True:
            params: dict[str, Any] = {"cwd": str(workspace)}
            if cursor:
                params["cursor"] = cursor
            result = agent.request("session/list", params)["result"]
            seen += [s["sessionId"] for s in result["sessions"]]
            pages += 1
            cursor = result.get("nextCursor")
            if not cursor:
                break
        assert agent.request("session/list", {"cwd": str(tmp_path / "nowhere")})["result"] == {
            "sessions": []
        }
        assert agent.request("session/list", {"cursor": "garbage"})["error"]["code"] == -32602
        everything = agent.request("session/list", {})["result"]["sessions"]
    assert sorted(seen) == sorted(created) and len(seen) == 120 and pages == 3
    assert (
        seen == list(reversed(created)) or len(set(seen)) == 120
    )  # newest first; ties keep order by id
    assert len(everything) == 50


def test_close_and_delete(agent_env: dict[str, str], workspace: Path) -> None:
    with RawAgent(agent_env) as agent:
        session_id = agent.start_session(workspace)
        assert agent.request("session/close", {"sessionId": session_id})["result"] == {}
        assert (
            agent.request(
                "session/prompt",
                {"sessionId": session_id, "prompt": [{"type": "text", "text": "hi"}]},
            )["error"]["code"]
            == -32002
        )
        agent.request(
            "session/load", {"sessionId": session_id, "cwd": str(workspace), "mcpServers": []}
        )
        assert agent.request("session/delete", {"sessionId": session_id})["result"] == {}
        assert agent.request("session/delete", {"sessionId": session_id})["result"] == {}
        assert agent.request("session/delete", {"sessionId": "never-existed"})["result"] == {}
        missing = agent.request(
            "session/load", {"sessionId": session_id, "cwd": str(workspace), "mcpServers": []}
        )
        assert missing["error"]["code"] == -32002
        assert agent.request("session/list", {})["result"]["sessions"] == []


def test_close_during_a_prompt_ends_it_cancelled(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    env = scripted(agent_env, tmp_path, [{"text": "working"}, {"sleep": 30}])
    with RawAgent(env) as agent:
        session_id = agent.turn_under_way(workspace, "go", request_id="p", started=a_message_chunk)
        agent.send(
            {
                "jsonrpc": "2.0",
                "id": "tck-close",
                "method": "session/close",
                "params": {"sessionId": session_id},
            }
        )
        assert agent.wait_for(lambda m: m.get("id") == "p")["result"] == {"stopReason": "cancelled"}
        assert agent.wait_for(lambda m: m.get("id") == "tck-close")["result"] == {}


@pytest.mark.parametrize("delay_ms", [0, 1, 2, 5])
def test_close_sent_just_after_a_prompt_ends_it_cancelled_whatever_the_timing(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path, delay_ms: int
) -> None:
    """The prompt may still be loading its parts (a fresh process) or waiting for the session
    to be ready when the close lands: it answers ``cancelled``, never "unknown session"."""
    env = scripted(agent_env, tmp_path, [{"text": "working"}, {"sleep": 30}])
    with RawAgent(env) as agent:
        agent.initialize()
        for round_ in range(3):  # the first in a fresh process, then with its parts loaded
            session_id = agent.new_session(workspace)
            agent.start_prompt(session_id, "go", request_id=f"p{round_}")
            time.sleep(delay_ms / 1000)
            close = {"sessionId": session_id}
            agent.send(
                {"jsonrpc": "2.0", "id": f"c{round_}", "method": "session/close", "params": close}
            )
            answer = agent.wait_for(lambda m, r=round_: m.get("id") == f"p{r}", timeout=15)
            assert answer.get("result") == {"stopReason": "cancelled"}, answer
            assert agent.wait_for(lambda m, r=round_: m.get("id") == f"c{r}")["result"] == {}


def test_a_killed_agent_loses_at_most_the_reply_it_was_writing(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    env = scripted(agent_env, tmp_path, [{"text": "first answer"}])
    with RawAgent(env) as agent:
        session_id = agent.start_session(workspace)
        agent.prompt(session_id, "first question")
    slow = scripted(agent_env, tmp_path, [{"text": "an answer that never ends"}, {"sleep": 60}])
    with RawAgent(slow) as agent:
        agent.initialize()
        agent.request(
            "session/load", {"sessionId": session_id, "cwd": str(workspace), "mcpServers": []}
        )
        agent.drain(quiet=0.2)
        agent.start_prompt(session_id, "second question", request_id="p")
        wait_for_first_chunk(agent)
        time.sleep(0.2)
        os.kill(agent.proc.pid, signal.SIGKILL)
        agent.proc.wait()
    with RawAgent(env) as agent:
        replayed, response = reopen(agent, session_id, workspace)
    assert "result" in response
    texts = [
        u["content"]["text"]
        for u in replayed
        if u["sessionUpdate"] in ("user_message_chunk", "agent_message_chunk")
    ]
    assert texts[:3] == ["first question", "first answer", "second question"]
    db = json.dumps(texts)
    assert "never ends" not in db  # the reply being written when the agent died is the only loss


def test_the_agent_can_search_earlier_sessions_of_the_workspace(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    first = scripted(agent_env, tmp_path, [{"text": "We chose PostgreSQL for the ledger service."}])
    with RawAgent(first) as agent:
        agent.prompt(agent.start_session(workspace), "which database did we pick?")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with RawAgent(first) as agent:
        agent.prompt(agent.start_session(elsewhere), "the ledger uses sqlite here")
    searching = scripted(agent_env, tmp_path, call("session_search", query="ledger database"))
    with RawAgent(searching) as agent:
        _, updates = agent.prompt(agent.start_session(workspace), "remind me")
    result = next(u for u in updates if u.get("status") == "completed")["rawOutput"]["output"]
    assert "which database did we pick?" in result and "[ledger]" in result
    assert "sqlite" not in result  # other workspaces stay out


def test_a_fork_diverges_without_touching_its_parent(
    agent_env: dict[str, str], workspace: Path
) -> None:
    with RawAgent(agent_env) as agent:
        parent = agent.start_session(workspace)
        agent.prompt(parent, "shared beginning")
        fork = agent.request(
            "session/fork",
            {"sessionId": parent, "cwd": str(workspace), "mcpServers": []},
            check=False,
        )["result"]
        assert fork["sessionId"] != parent and fork["modes"]["currentModeId"] == "ask"
        agent.prompt(fork["sessionId"], "only in the fork")
        parent_view, _ = load(agent, parent, workspace)
        fork_view, _ = load(agent, fork["sessionId"], workspace)
        missing = agent.request(
            "session/fork", {"sessionId": "nope", "cwd": str(workspace)}, check=False
        )["error"]
    assert _said(parent_view) == ["shared beginning"]
    assert _said(fork_view) == ["shared beginning", "only in the fork"]
    assert missing["code"] == -32002


def _said(view: list[dict[str, Any]]) -> list[str]:
    return [u["content"]["text"] for u in view if u["sessionUpdate"] == "user_message_chunk"]


def test_a_terminated_agent_saves_the_reply_it_was_writing(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    """SIGTERM (an editor closing) ends the turn like a cancel: what arrived is kept and saved."""
    slow = scripted(agent_env, tmp_path, [{"text": "an answer cut short"}, {"sleep": 60}])
    with RawAgent(slow) as agent:
        session_id = agent.turn_under_way(
            workspace, "a question", request_id="p", started=a_message_chunk
        )
        time.sleep(0.2)
        agent.proc.terminate()
        assert agent.proc.wait(timeout=10) == 0
        answer = agent.wait_for(lambda m: m.get("id") == "p")
        assert answer["result"]["stopReason"] == "cancelled"  # the prompt is answered, too
    with RawAgent(slow) as agent:
        replayed, response = reopen(agent, session_id, workspace)
    assert "result" in response
    texts = [u["content"]["text"] for u in replayed if u["sessionUpdate"] == "agent_message_chunk"]
    assert "".join(texts) == "an answer cut short"


def test_a_reply_with_a_broken_character_is_saved_and_replayed(
    agent_env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    """Half an emoji (a lone surrogate) from a provider's stream is stored, not a failed save."""
    env = {**agent_env, **fake.environment("anthropic:claude-test")}
    fake.enqueue(Reply((Text("half an emoji: \ud83d, then more"),)))
    with RawAgent(env) as agent:
        session_id = agent.start_session(workspace, {"session": {"notices": {}}})
        _, updates = agent.prompt(session_id, "say something odd")
        later = [
            m["params"]["update"] for m in agent.drain() if m.get("method") == "session/update"
        ]
    assert not [u for u in updates + later if u["sessionUpdate"] == "notice"]
    with RawAgent(env) as agent:
        replayed, response = reopen(agent, session_id, workspace)
    assert "result" in response
    said = [u for u in replayed if u["sessionUpdate"] == "agent_message_chunk"]
    assert said and said[0]["content"]["text"].endswith(", then more")
