"""Every provider end to end: `heron acp` (real SDKs inside) against the fake LLM server."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_llm import MODELS, Failure, FakeLLM, Reasoning, Reply, Text, ToolCall
from tests.support.raw import RawAgent
from tests.support.updates import of_kind, text_of


@pytest.fixture
def env_model(provider: str) -> str:
    return MODELS[provider]


@pytest.fixture
def env_config() -> str:
    return "[retry]\nbase_delay = 0.05\nmax_attempts = 3\n"


@pytest.fixture
def capabilities() -> dict[str, Any]:
    return {"session": {"notices": {}}}


def start(env: dict[str, str], workspace: Path, notices: bool = True) -> tuple[RawAgent, str]:
    agent = RawAgent(env)
    return agent, agent.start_session(workspace, {"session": {"notices": {}}} if notices else {})


def test_text_and_reasoning_stream_before_the_model_finishes(
    agent: RawAgent, session_id: str, fake: FakeLLM
) -> None:
    answer = "Streaming works, one small piece at a time."
    fake.enqueue(
        Reply((Reasoning("thinking it over"), Text(answer)), chunk_chars=6, chunk_delay=0.03)
    )
    stop, updates = agent.prompt(session_id, "hello")
    assert stop == "end_turn"
    assert text_of(updates) == answer
    assert text_of(updates, "agent_thought_chunk") == "thinking it over"
    chunks = of_kind(updates, "agent_message_chunk")
    assert len(chunks) > 3 and len({c["messageId"] for c in chunks}) == 1
    first_chunk_at = next(
        t
        for t, m in agent.arrivals
        if m.get("params", {}).get("update", {}).get("sessionUpdate") == "agent_message_chunk"
    )
    finished_at = fake.finished(fake.requests[0])
    assert first_chunk_at < finished_at - 0.1  # true streaming
    usage = of_kind(updates, "usage_update")[-1]
    assert usage["used"] == 120 and usage["size"] > 0
    body = fake.requests[0].body
    assert "hello" in json.dumps(body)


@pytest.mark.parametrize("provider", ["openai-chat"])
def test_chat_reasoning_in_either_field_streams_as_thought(
    agent: RawAgent, session_id: str, fake: FakeLLM
) -> None:
    fake.enqueue(
        Reply((Reasoning("first, ", "reasoning"), Reasoning("then"), Text("done")), chunk_chars=4)
    )
    stop, updates = agent.prompt(session_id, "hello")
    assert stop == "end_turn"
    assert text_of(updates, "agent_thought_chunk") == "first, then"
    assert text_of(updates) == "done"


def test_a_tool_call_round_trip(agent: RawAgent, session_id: str, fake: FakeLLM) -> None:
    fake.enqueue(
        Reply((Text("Let me look."), ToolCall("read_file", {"path": "README.md"})), chunk_chars=5),
        Reply((Text("It is a sample."),)),
    )
    stop, updates = agent.prompt(session_id, "what is in the readme?")
    assert stop == "end_turn"
    [call] = of_kind(updates, "tool_call")
    assert call["status"] == "pending" and call["name"] == "read_file" and call["kind"] == "read"
    progress = [
        u for u in of_kind(updates, "tool_call_update") if u["toolCallId"] == call["toolCallId"]
    ]
    assert [u["status"] for u in progress if "status" in u] == ["in_progress", "completed"]
    assert progress[-1]["rawOutput"]["output"] == "     1\t# sample"
    assert any(u.get("title") == "Read README.md" for u in progress)  # previewed while streaming
    second = json.dumps(fake.requests[1].body)
    assert (
        "# sample" in second and call["toolCallId"] in second
    )  # the result went back to the model
    assert text_of(updates) == "Let me look.It is a sample."


def test_cancel_during_a_tool(env: dict[str, str], workspace: Path, fake: FakeLLM) -> None:
    env["HERON_MODE"] = "full-access"
    fake.enqueue(Reply((ToolCall("terminal", {"command": "sleep 29.9792"}),)))
    agent, session_id = start(env, workspace)
    with agent:
        agent.start_prompt(session_id, "wait", request_id="p")
        agent.wait_for(
            lambda m: m.get("params", {}).get("update", {}).get("status") == "in_progress"
        )
        started = time.monotonic()
        agent.notify("session/cancel", {"sessionId": session_id})
        response = agent.wait_for(lambda m: m.get("id") == "p", timeout=5)
        assert response["result"] == {"stopReason": "cancelled"}
        assert time.monotonic() - started < 3
        agent.drain(quiet=0.2)
        fake.enqueue(Reply((Text("next"),)))
        stop, _ = agent.prompt(session_id, "again")
    assert stop == "end_turn"
    history = json.dumps(fake.requests[1].body)
    assert "cancelled this tool call" in history  # the dangling call was closed in history


def test_a_cancel_sent_while_the_first_prompt_loads_its_parts_ends_it(
    agent: RawAgent, session_id: str, fake: FakeLLM
) -> None:
    """The first prompt of a fresh process waits for the SDK and the turn machinery to load (in
    worker threads); a cancel sent meanwhile ends it before it asks the model anything."""
    fake.enqueue(Reply((Text("never sent"),)))
    agent.start_prompt(session_id, "hello", request_id="p")
    agent.notify("session/cancel", {"sessionId": session_id})
    response = agent.wait_for(lambda m: m.get("id") == "p", timeout=30)
    assert response["result"] == {"stopReason": "cancelled"}
    assert fake.requests == []
    stop, updates = agent.prompt(session_id, "again")  # the session goes on
    assert stop == "end_turn" and text_of(updates) == "never sent"


def test_images_reach_models_that_take_them(
    agent: RawAgent, session_id: str, fake: FakeLLM, provider: str
) -> None:
    fake.enqueue(Reply((Text("a red pixel"),)))
    capabilities = agent.initialize()["agentCapabilities"]["promptCapabilities"]
    pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
    prompt = [
        {"type": "text", "text": "what is this?"},
        {"type": "image", "data": pixel, "mimeType": "image/png"},
    ]
    response = agent.request("session/prompt", {"sessionId": session_id, "prompt": prompt})
    if provider == "openai-chat":  # a model Heron knows nothing about: no images unless configured
        assert capabilities["image"] is False and response["error"]["code"] == -32602
        return
    assert capabilities["image"] is True and response["result"]["stopReason"] == "end_turn"
    assert pixel in json.dumps(fake.requests[0].body)


def test_rate_limit_is_retried_and_the_user_sees_it(
    agent: RawAgent, session_id: str, fake: FakeLLM
) -> None:
    fake.enqueue(Failure(429, retry_after=0.2, message="slow down"), Reply((Text("ok now"),)))
    stop, updates = agent.prompt(session_id, "hi")
    assert stop == "end_turn"
    assert text_of(updates) == "ok now"
    [notice] = of_kind(updates, "notice")
    assert notice["severity"] == "warning" and "retrying in 0.2 s" in notice["title"].lower()
    gap = fake.requests[1].started_at - fake.requests[0].started_at
    assert gap >= 0.2  # Retry-After was honoured


def test_without_notice_support_the_status_is_a_short_message(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    fake.enqueue(Failure(529, message="overloaded"), Reply((Text("fine"),)))
    agent, session_id = start(env, workspace, notices=False)
    with agent:
        _, updates = agent.prompt(session_id, "hi")
    assert of_kind(updates, "notice") == []
    assert "retrying in" in text_of(updates).lower() and text_of(updates).endswith("fine")


def test_a_stream_cut_mid_message_ends_the_turn_clearly_and_keeps_history(
    agent: RawAgent, session_id: str, fake: FakeLLM
) -> None:
    fake.enqueue(
        Reply(
            (Text("This answer will stop somewhere in the middle of it."),),
            chunk_chars=4,
            cut_after_events=8,
        )
    )
    stop, updates = agent.prompt(session_id, "first")
    partial = text_of(updates)
    fake.enqueue(Reply((Text("second answer"),)))
    stop2, updates2 = agent.prompt(session_id, "second")
    assert stop == "end_turn" and partial and "cut off" not in partial
    assert any("cut off" in n["title"] for n in of_kind(updates, "notice"))
    assert stop2 == "end_turn" and text_of(updates2) == "second answer"
    history = json.dumps(fake.requests[1].body)
    assert partial in history and "second" in history  # the partial reply stayed in history


def test_a_stream_cut_before_any_output_is_retried(
    agent: RawAgent, session_id: str, fake: FakeLLM
) -> None:
    fake.enqueue(Reply((Text("never seen"),), cut_after_events=1), Reply((Text("second try"),)))
    stop, updates = agent.prompt(session_id, "hi")
    assert stop == "end_turn" and text_of(updates) == "second try"


def test_cancel_during_the_stream(agent: RawAgent, session_id: str, fake: FakeLLM) -> None:
    fake.enqueue(Reply((Text("partial answer"),), hold_open=30))
    agent.start_prompt(session_id, "go", request_id="p")
    agent.wait_for(
        lambda m: (
            m.get("params", {}).get("update", {}).get("sessionUpdate") == "agent_message_chunk"
        )
    )
    cancelled_at = time.monotonic()
    agent.notify("session/cancel", {"sessionId": session_id})
    response = agent.wait_for(lambda m: m.get("id") == "p", timeout=5)
    assert response["result"] == {"stopReason": "cancelled"}
    assert time.monotonic() - cancelled_at < 1.0
    answered_at = next(t for t, m in agent.arrivals if m.get("id") == "p")
    late = [m for t, m in agent.arrivals if t > answered_at and m.get("method") == "session/update"]
    assert late == []  # nothing for the session after the cancelled prompt's answer
    agent.drain(quiet=0.2)
    fake.enqueue(Reply((Text("after cancel"),)))
    stop, updates = agent.prompt(session_id, "again")
    assert stop == "end_turn" and text_of(updates) == "after cancel"
    assert "partial answer" in json.dumps(fake.requests[1].body)


def test_an_unknown_model_is_a_clear_error(agent: RawAgent, session_id: str, fake: FakeLLM) -> None:
    fake.enqueue(Failure(404, message="model not found"))
    agent.start_prompt(session_id, "go", request_id="p")
    error = agent.wait_for(lambda m: m.get("id") == "p")["error"]
    assert "model not found" in error["message"] and "Traceback" not in error["message"]


@pytest.mark.parametrize(
    ("stop", "expected"), [("max_tokens", "max_tokens"), ("refusal", "refusal")]
)
def test_stop_reasons_reach_the_editor(
    agent: RawAgent, session_id: str, fake: FakeLLM, stop: str, expected: str
) -> None:
    fake.enqueue(Reply((Text("I will not finish this"),), stop=stop))  # type: ignore[arg-type]
    result, _ = agent.prompt(session_id, "go")
    assert result == expected


@pytest.mark.parametrize(
    "provider", ["anthropic"]
)  # the budget is the loop's, whatever the provider
def test_a_failed_summary_request_still_ends_the_turn_at_its_limit(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    fake.enqueue(*[Reply((ToolCall("find_files", {"glob": "*.md"}),)) for _ in range(3)])
    fake.enqueue(Failure(400, message="no summary today"))
    Path(env["HERON_HOME"], "config.toml").write_text("max_turn_requests = 3\n")
    agent, session_id = start(env, workspace)
    with agent:
        result, updates = agent.prompt(session_id, "loop forever")
    assert result == "max_turn_requests" and len(fake.requests) == 4
    assert all(
        u["status"] == "completed"
        for u in updates
        if u.get("sessionUpdate") == "tool_call_update"
        and "status" in u
        and u["status"] != "in_progress"
    )
    [notice] = [u for u in updates if u["sessionUpdate"] == "notice"]
    assert notice["title"] == "No summary of the turn"
    assert "no summary today" in notice["description"]


def test_a_heron_killed_during_a_tool_leaves_a_history_the_provider_takes(
    env: dict[str, str], workspace: Path, fake: FakeLLM, heron_home: Path
) -> None:
    env["HERON_MODE"] = "full-access"
    fake.enqueue(
        Reply((Text("Running it."), ToolCall("terminal", {"command": "sleep 29.9793"}, "c-1")))
    )
    killed, session_id = start(env, workspace)
    with killed:
        killed.start_prompt(session_id, "wait", request_id="p")
        killed.wait_for(
            lambda m: m.get("params", {}).get("update", {}).get("status") == "in_progress"
        )
        stored_messages(heron_home, session_id, at_least=2)  # the call is on disk
        killed.proc.kill()
        killed.proc.wait()

    fake.enqueue(Reply((Text("Carrying on."),)))
    with RawAgent(env) as again:
        again.initialize()
        replayed = load(again, session_id, workspace)
        [failed] = [u for u in replayed if u.get("status") == "failed"]
        assert failed["toolCallId"] == "c-1"
        assert failed["content"][0]["content"]["text"] == INTERRUPTED
        [shown] = [u for u in replayed if u["sessionUpdate"] == "tool_call"]
        assert shown["toolCallId"] == "c-1" and shown["title"] == "Run `sleep 29.9793`"
        stop, _ = again.prompt(session_id, "go on")  # the fake server answers 400 if unpaired
    assert stop == "end_turn"
    assert INTERRUPTED in json.dumps(fake.requests[-1].body)

    with RawAgent(env) as later:  # the mended history and its replay were stored
        later.initialize()
        replayed = load(later, session_id, workspace)
    assert [u["toolCallId"] for u in replayed if u.get("status") == "failed"] == ["c-1"]
    assert text_of(replayed) == "Running it.Carrying on."


INTERRUPTED = "interrupted: Heron stopped before this finished"


def load(agent: RawAgent, session_id: str, cwd: Path) -> list[dict[str, Any]]:
    """``session/load``'s replayed updates."""
    params = {"sessionId": session_id, "cwd": str(cwd), "mcpServers": []}
    assert "result" in agent.request("session/load", params)
    return [m["params"]["update"] for m in agent.drain() if m.get("method") == "session/update"]


def stored_messages(heron_home: Path, session_id: str, *, at_least: int) -> None:
    """Wait until the store holds ``at_least`` of the session's messages."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with contextlib.closing(sqlite3.connect(heron_home / "sessions.db")) as db:
            query = "SELECT count(*) FROM messages WHERE session_id = ?"
            if db.execute(query, (session_id,)).fetchone()[0] >= at_least:
                return
        time.sleep(0.05)
    raise AssertionError(f"the store never held {at_least} messages of {session_id}")
