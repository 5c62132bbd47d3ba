"""A first prompt sent the moment ``session/new`` answers goes first: what no prompt needs (the
model picker's lists, the workspace's watcher) starts once it has ended, through a real
``heron acp`` and the fake model server; nothing is lost by the wait. A prompt typed a moment
later finds its model's connection open."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_llm import MODELS, FakeLLM, Reply, Text
from tests.support.raw import RawAgent

TURN_S = 1.0  # the first reply is held open this long: the turn surely runs meanwhile
# The user types after the server answered the HEAD: Heron has read that answer and put the
# connection back in its pool by then (a request sent while it is still in use opens another).
TYPING_S = 0.3


def _commands(message: dict[str, Any]) -> set[str]:
    if message.get("method") != "session/update":
        return set()
    update = message["params"]["update"]
    if update["sessionUpdate"] != "available_commands_update":
        return set()
    return {command["name"] for command in update["availableCommands"]}


@pytest.mark.parametrize("env_model", ["openai:gpt-bench"])
def test_the_model_lists_are_asked_once_the_first_prompt_has_ended(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    fake.enqueue(Reply((Text("Hello."),), hold_open=TURN_S))
    with RawAgent(env) as agent:
        agent.initialize()
        stop, _ = agent.prompt(agent.new_session(workspace), "hi")
        assert stop == "end_turn"
        # The reply's end was held back TURN_S after its request arrived: the prompt cannot
        # have ended before then (the server's own end mark may come later than the client's).
        ended = fake.requests[0].started_at + TURN_S
        deadline = time.monotonic() + 10
        while not fake.listings and time.monotonic() < deadline:
            time.sleep(0.05)
    assert fake.listings, "the model lists were never asked"
    assert fake.listings[0].started_at >= ended


@pytest.mark.parametrize("env_model", ["openai:gpt-bench"])
def test_a_template_written_during_the_first_prompt_is_told_after_it(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    """The watch is laid after the first prompt; what changed before it is still told."""
    fake.enqueue(Reply((Text("Hello."),), hold_open=TURN_S))
    template = workspace / ".heron" / "commands" / "review.md"
    with RawAgent(env) as agent:
        agent.initialize()
        session_id = agent.new_session(workspace)
        agent.start_prompt(session_id, "hi", request_id="first")
        fake.wait_for_requests(1)  # the turn runs: the watch waits for it
        template.parent.mkdir(parents=True)
        template.write_text("description: Review the change\n\nReview $ARGUMENTS\n")
        agent.wait_for(lambda m: m.get("id") == "first", timeout=30)
        told = agent.wait_for(lambda m: "review" in _commands(m), timeout=10)
    assert told["params"]["sessionId"] == session_id


@pytest.mark.parametrize("env_model", ["openai:gpt-bench"])
def test_a_session_closed_during_its_first_prompt_is_never_watched(
    env: dict[str, str], workspace: Path, fake: FakeLLM, heron_home: Path
) -> None:
    fake.enqueue(Reply((Text("Hello."),), hold_open=TURN_S))
    with RawAgent(env) as agent:
        agent.initialize()
        session_id = agent.new_session(workspace)
        agent.start_prompt(session_id, "hi", request_id="first")
        fake.wait_for_requests(1)
        agent.request("session/close", {"sessionId": session_id})
        agent.wait_for(lambda m: m.get("id") == "first", timeout=30)
        agent.drain(1.0)  # the session's follow-up has run its course
    logged = "".join(p.read_text() for p in (heron_home / "logs").glob("*"))
    assert "watching workspace" not in logged


@pytest.mark.parametrize("env_model", list(MODELS.values()))
def test_a_prompt_typed_after_the_session_opened_takes_the_connection_opened_meanwhile(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    fake.enqueue(Reply((Text("Hello."),)))
    with RawAgent(env) as agent:
        agent.initialize()
        session_id = agent.new_session(workspace)
        fake.wait_for_heads(1)
        time.sleep(TYPING_S)
        stop, _ = agent.prompt(session_id, "hi")
    assert stop == "end_turn"
    (head,), (request,) = fake.heads, fake.requests
    assert request.client_port == head.client_port


@pytest.mark.parametrize("env_model", ["anthropic:claude-bench"])
def test_a_model_switched_to_is_connected_before_the_next_prompt(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    """The model picker's choice loads its SDK and opens its own client's connection while the
    user types; the next prompt's request takes that connection."""
    fake.enqueue(Reply((Text("Hello."),)))
    with RawAgent(env) as agent:
        agent.initialize()
        session_id = agent.new_session(workspace)
        fake.wait_for_heads(1)  # the Anthropic client's
        params = {"sessionId": session_id, "configId": "model", "value": "openai:gpt-bench"}
        assert "result" in agent.request("session/set_config_option", params)
        fake.wait_for_heads(2)  # the OpenAI client's, at its base URL (…/v1)
        time.sleep(TYPING_S)
        stop, _ = agent.prompt(session_id, "hi")
    assert stop == "end_turn"
    anthropic, openai = fake.heads
    (request,) = fake.requests
    assert (anthropic.path, openai.path) == ("/", "/v1/")
    assert request.path == "/v1/responses" and request.client_port == openai.client_port
