"""Named providers end to end: `heron acp` against two fake model servers at once, each a named
`openai-chat` provider; the model picker lists what both offer and moves the session between
them. Claude on Vertex AI and Bedrock against the fake server speaking their wire formats."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_llm import FakeLLM, Reply, Text
from tests.support.raw import RawAgent


@pytest.fixture
def second() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


def two_servers(home: Path, alpha: FakeLLM, beta: FakeLLM) -> None:
    alpha.models, beta.models = ("qwen3-coder", "qwen3-small"), ("llama-4", "text-embedding-3")
    (home / "config.toml").write_text(
        "[retry]\nmax_attempts = 1\n\n"
        f'[providers.alpha]\napi = "openai-chat"\nbase_url = "{alpha.url}/v1"\n\n'
        f'[providers.beta]\napi = "openai-chat"\nbase_url = "{beta.url}/v1"\n'
        'api_key_env = "BETA_KEY"\nheaders = { "X-Team" = "tools" }\n'
    )


def picker(options: list[dict[str, Any]]) -> dict[str, str]:
    [model] = [o for o in options if o["id"] == "model"]
    return {o["value"]: o.get("description", "") for o in model["options"]}


def option_updates(agent: RawAgent, timeout: float = 10) -> dict[str, Any]:
    return agent.wait_for(
        lambda m: (
            m.get("params", {}).get("update", {}).get("sessionUpdate") == "config_option_update"
        ),
        timeout=timeout,
    )


def said(updates: list[dict[str, Any]]) -> str:
    return "".join(
        u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"
    )


def chats(fake: FakeLLM) -> list[Any]:
    return [r for r in fake.requests if r.path.endswith("/chat/completions")]


def test_the_picker_lists_both_servers_and_switching_moves_the_next_request(
    agent_env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM, second: FakeLLM
) -> None:
    two_servers(heron_home, fake, second)
    env = {**agent_env, "HERON_MODEL": "alpha:qwen3-coder", "BETA_KEY": "beta-secret"}
    fake.enqueue(Reply((Text("from alpha"),)))
    second.enqueue(Reply((Text("from beta"),)))
    with RawAgent(env) as agent:
        agent.initialize()
        opened = agent.request("session/new", {"cwd": str(workspace), "mcpServers": []})
        session_id = opened["result"]["sessionId"]
        first = picker(opened["result"]["configOptions"])
        assert (
            next(iter(first)) == "alpha:qwen3-coder" and first["alpha:qwen3-coder"] == "Configured"
        )
        listed = picker(option_updates(agent)["params"]["update"]["configOptions"])
        assert next(iter(listed)) == "alpha:qwen3-coder"  # the current model first
        assert listed["alpha:qwen3-small"] == "Offered by alpha"
        assert listed["beta:llama-4"] == "Offered by beta"
        assert "beta:text-embedding-3" not in listed  # not a chat model
        [beta_list] = second.listings
        assert beta_list.headers["authorization"] == "Bearer beta-secret"
        assert beta_list.headers["x-team"] == "tools"

        stop, updates = agent.prompt(session_id, "hello")
        assert stop == "end_turn" and said(updates) == "from alpha"
        assert [r.body["model"] for r in chats(fake)] == ["qwen3-coder"] and not chats(second)

        params = {"sessionId": session_id, "configId": "model", "value": "beta:llama-4"}
        switched = agent.request("session/set_config_option", params)["result"]
        now = picker(switched["configOptions"])
        assert next(iter(now)) == "beta:llama-4" and now["alpha:qwen3-coder"] == "Configured"
        stop, updates = agent.prompt(session_id, "and now?")
        assert stop == "end_turn" and said(updates) == "from beta"
    [request] = chats(second)
    assert request.body["model"] == "llama-4" and "hello" in json.dumps(request.body)
    assert request.headers["authorization"] == "Bearer beta-secret"
    assert request.headers["x-team"] == "tools"
    assert len(chats(fake)) == 1


def test_the_lists_are_asked_after_session_new_and_kept_on_disk(
    agent_env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM, second: FakeLLM
) -> None:
    two_servers(heron_home, fake, second)
    fake.models_delay = 1.5  # a slow models endpoint must not hold the session up
    env = {**agent_env, "HERON_MODEL": "alpha:qwen3-coder", "BETA_KEY": "k"}
    with RawAgent(env) as agent:
        agent.initialize()
        started = time.monotonic()
        opened = agent.request("session/new", {"cwd": str(workspace), "mcpServers": []})
        assert time.monotonic() - started < 1.0
        assert "alpha:qwen3-small" not in picker(opened["result"]["configOptions"])
        deadline = time.monotonic() + 10
        listed: dict[str, str] = {}
        while "alpha:qwen3-small" not in listed and time.monotonic() < deadline:
            listed = picker(option_updates(agent)["params"]["update"]["configOptions"])
        assert "alpha:qwen3-small" in listed and "beta:llama-4" in listed
    cache = json.loads((heron_home / "models.json").read_text())
    assert cache["providers"]["alpha"]["models"] == ["qwen3-coder", "qwen3-small"]
    asked = len(fake.listings) + len(second.listings)
    with RawAgent(env) as agent:  # a new process: the lists come from the file, unasked
        agent.start_session(workspace)
        listed = picker(option_updates(agent)["params"]["update"]["configOptions"])
        assert "alpha:qwen3-small" in listed and "beta:llama-4" in listed
    assert len(fake.listings) + len(second.listings) == asked


def test_a_preset_needs_only_its_key(
    agent_env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM
) -> None:
    """`HERON_MODEL=groq:<model>` with GROQ_API_KEY set, its endpoint moved to the fake one."""
    (heron_home / "config.toml").write_text(f'[providers.groq]\nbase_url = "{fake.url}/v1"\n')
    env = {**agent_env, "HERON_MODEL": "groq:llama-3.3-70b", "GROQ_API_KEY": "gsk-test"}
    fake.enqueue(Reply((Text("fast"),)))
    with RawAgent(env) as agent:
        stop, _ = agent.prompt(agent.start_session(workspace), "hi")
    assert stop == "end_turn"
    [request] = chats(fake)
    assert request.body["model"] == "llama-3.3-70b"
    assert request.headers["authorization"] == "Bearer gsk-test"


def test_claude_on_vertex_ai(
    agent_env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM
) -> None:
    (heron_home / "config.toml").write_text(
        f'[providers.vertex]\nbase_url = "{fake.url}/v1"\napi_key = "ya29.token"\n'
        'region = "us-east5"\nproject = "my-project"\n'
    )
    env = {**agent_env, "HERON_MODEL": "vertex:claude-sonnet-4-5@20250929"}
    fake.enqueue(Reply((Text("hello from Vertex"),)))
    with RawAgent(env) as agent:
        stop, updates = agent.prompt(agent.start_session(workspace), "hi")
    assert stop == "end_turn" and said(updates) == "hello from Vertex"
    [request] = [r for r in fake.requests if r.path.endswith(":streamRawPredict")]
    assert request.path == (
        "/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/"
        "claude-sonnet-4-5@20250929:streamRawPredict"
    )
    assert request.headers["authorization"] == "Bearer ya29.token"
    assert "anthropic_version" in request.body and request.body["stream"] is True
    assert request.body["messages"][0]["role"] == "user"


def test_claude_on_bedrock(
    agent_env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM
) -> None:
    pytest.importorskip("botocore")  # heron-agent[bedrock]: the event-stream decoder
    env = {
        **agent_env,
        "HERON_MODEL": "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "AWS_REGION": "us-west-2",
        "AWS_BEARER_TOKEN_BEDROCK": "bedrock-api-key",
        "ANTHROPIC_BEDROCK_BASE_URL": fake.url,
    }
    fake.enqueue(Reply((Text("hello from Bedrock"),), chunk_chars=4))
    with RawAgent(env) as agent:
        stop, updates = agent.prompt(agent.start_session(workspace), "hi")
    assert stop == "end_turn" and said(updates) == "hello from Bedrock"
    [request] = [r for r in fake.requests if r.path.startswith("/model/")]
    assert request.path == (
        "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream"
    )
    assert request.headers["authorization"] == "Bearer bedrock-api-key"
    assert "anthropic_version" in request.body  # the model is in the URL, streaming too
    assert "model" not in request.body and "stream" not in request.body
    assert "hi" in json.dumps(request.body["messages"])
