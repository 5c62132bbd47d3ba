"""Each class of provider failure, from the fake server in each API's own error shape, through
a real `heron acp` over stdio: the action Heron takes (retry, fall back, compact, stop) and the
message the editor shows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_llm import MODELS, Failure, FakeLLM, Reply, Text
from tests.support.raw import RawAgent
from tests.support.updates import text_of

FALLBACK = {
    "anthropic": "anthropic:claude-haiku-4-5",
    "openai": "openai:gpt-5-mini",
    "openai-chat": "openai-chat:qwen3-small",
}
KEY = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
    "openai-chat": "OPENAI_API_KEY",
}
# Each API's own way of saying it: the shapes the providers (and common servers) really send.
OVERFLOW = {
    "anthropic": Failure(400, message="prompt is too long: 250000 tokens > 200000 maximum"),
    "openai": Failure(
        400,
        message="Your input exceeds the context window of this model.",
        code="context_length_exceeded",
    ),
    "openai-chat": Failure(
        400,
        message="This model's maximum context length is 32768 tokens. However, you requested "
        "40000 tokens. Please reduce the length of the messages.",
    ),
}
BILLING = {
    "anthropic": Failure(
        400,
        message="Your credit balance is too low to access the Anthropic API. Please go to "
        "Plans & Billing to upgrade or purchase credits.",
    ),
    "openai": Failure(
        429,
        message="You exceeded your current quota, please check your plan and billing details.",
        code="insufficient_quota",
    ),
    "openai-chat": Failure(402, message="Insufficient credits"),
}


def start(env: dict[str, str], workspace: Path, config: str = "") -> tuple[RawAgent, str]:
    Path(env["HERON_HOME"], "config.toml").write_text(
        f"{config}\n[retry]\nbase_delay = 0.01\nmax_attempts = 2\n"
    )
    agent = RawAgent(env)
    return agent, agent.start_session(workspace, {"session": {"notices": {}}})


def failed_prompt(agent: RawAgent, session_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The error the editor gets for a prompt, and the updates before it."""
    agent.start_prompt(session_id, "go", request_id="p")
    error = agent.wait_for(lambda m: m.get("id") == "p")["error"]
    updates = [
        m["params"]["update"] for _, m in agent.arrivals if m.get("method") == "session/update"
    ]
    return error, updates


def notices(updates: list[dict[str, Any]]) -> list[str]:
    return [u["title"] for u in updates if u["sessionUpdate"] == "notice"]


@pytest.fixture
def env_model(provider: str) -> str:
    return MODELS[provider]


def test_401_stops_with_which_key_to_fix(
    env: dict[str, str], workspace: Path, fake: FakeLLM, provider: str
) -> None:
    fake.enqueue(Failure(401, message="invalid x-api-key"))
    agent, session_id = start(env, workspace, f'fallback_models = ["{FALLBACK[provider]}"]')
    with agent:
        error, _ = failed_prompt(agent, session_id)
    assert error["code"] == -32000 and error["data"] == {
        "reason": "authentication"
    }  # auth_required
    assert f"set {KEY[provider]} or run `heron login`" in error["message"]
    assert "rejected the API key (401: invalid x-api-key)" in error["message"]
    assert len(fake.requests) == 1  # neither retried nor handed to a fallback


def test_billing_stops_with_where_to_pay(
    env: dict[str, str], workspace: Path, fake: FakeLLM, provider: str
) -> None:
    fake.enqueue(BILLING[provider])
    agent, session_id = start(env, workspace)
    with agent:
        error, _ = failed_prompt(agent, session_id)
    assert error["data"] == {"reason": "billing"} and len(fake.requests) == 1  # 429 or not
    assert "refused the request for billing" in error["message"]
    assert "add credit or raise the quota" in error["message"]


@pytest.mark.parametrize("status", [403, 404])
def test_a_model_that_is_not_there_or_not_allowed_falls_back(
    env: dict[str, str], workspace: Path, fake: FakeLLM, provider: str, status: int
) -> None:
    fake.enqueue(Failure(status, message="model not found"), Reply((Text("from the fallback"),)))
    agent, session_id = start(env, workspace, f'fallback_models = ["{FALLBACK[provider]}"]')
    with agent:
        stop, updates = agent.prompt(session_id, "go")
    assert stop == "end_turn" and text_of(updates) == "from the fallback"
    assert notices(updates) == [f"Switched to fallback model {FALLBACK[provider]}"]
    assert fake.requests[1].body["model"] == FALLBACK[provider].partition(":")[2]


def test_404_without_a_fallback_says_which_model(
    env: dict[str, str], workspace: Path, fake: FakeLLM, provider: str
) -> None:
    fake.enqueue(Failure(404, message="model not found"))
    agent, session_id = start(env, workspace)
    with agent:
        error, _ = failed_prompt(agent, session_id)
    model = MODELS[provider].partition(":")[2]
    assert (
        error["data"] == {"reason": "unknown_model"}
        and f"has no model '{model}'" in error["message"]
    )
    assert "/model" in error["message"] and "Traceback" not in error["message"]


@pytest.mark.parametrize(("status", "reason"), [(429, "Rate limited"), (500, "Server error")])
def test_transient_failures_are_retried(
    env: dict[str, str], workspace: Path, fake: FakeLLM, status: int, reason: str
) -> None:
    fake.enqueue(Failure(status, message="try later"), Reply((Text("second time"),)))
    agent, session_id = start(env, workspace)
    with agent:
        stop, updates = agent.prompt(session_id, "go")
    assert stop == "end_turn" and text_of(updates) == "second time"
    [notice] = notices(updates)
    assert notice.startswith(f"{reason}, retrying in")


def test_529_overload_is_retried_then_falls_back(
    env: dict[str, str], workspace: Path, fake: FakeLLM, provider: str
) -> None:
    fake.enqueue(Failure(529, message="Overloaded"), Failure(529, message="Overloaded"))
    fake.enqueue(Reply((Text("fallback answered"),)))
    agent, session_id = start(env, workspace, f'fallback_models = ["{FALLBACK[provider]}"]')
    with agent:
        stop, updates = agent.prompt(session_id, "go")
    assert stop == "end_turn" and text_of(updates) == "fallback answered"
    titles = notices(updates)
    assert titles[0].startswith("Overloaded, retrying in")
    assert titles[1] == f"Switched to fallback model {FALLBACK[provider]}"
    assert [r.body["model"] for r in fake.requests][-1] == FALLBACK[provider].partition(":")[2]


def test_529_without_a_fallback_ends_with_what_to_do(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    fake.enqueue(Failure(529, message="Overloaded"), Failure(529, message="Overloaded"))
    agent, session_id = start(env, workspace)
    with agent:
        error, _ = failed_prompt(agent, session_id)
    assert error["data"] == {"reason": "overloaded"} and "failed 2 times" in error["message"]
    assert (
        "Try again later, or name another model to take over in fallback_models"
        in (error["message"])
    )


def test_a_context_overflow_compacts_and_sends_again(
    env: dict[str, str], workspace: Path, fake: FakeLLM, provider: str
) -> None:
    fake.enqueue(OVERFLOW[provider], Reply((Text("fits now"),)))
    agent, session_id = start(env, workspace)
    with agent:
        stop, updates = agent.prompt(session_id, "go")
    assert stop == "end_turn" and text_of(updates).endswith("fits now")
    assert "Compacted the conversation to save context." in json.dumps(updates)
    assert len(fake.requests) == 2


def test_a_rejected_request_is_one_line_without_the_sdk(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    fake.enqueue(Failure(400, message="messages: roles must alternate\nat index 3"))
    agent, session_id = start(env, workspace)
    with agent:
        error, _ = failed_prompt(agent, session_id)
    assert error["data"] == {"reason": "bad_request"} and "\n" not in error["message"]
    assert "rejected the request" in error["message"]
    assert "Error code" not in error["message"] and "BadRequestError" not in error["message"]


@pytest.mark.parametrize(
    ("spec", "dollars"),
    [
        ("anthropic:claude-sonnet-4-5", (1000 * 3 + 200 * 15) / 1e6),
        ("openai:gpt-5", (1000 * 1.25 + 200 * 10) / 1e6),
    ],
)
def test_a_known_model_reports_its_cost_without_any_price_in_config(
    agent_env: dict[str, str], workspace: Path, fake: FakeLLM, spec: str, dollars: float
) -> None:
    env = {**agent_env, **fake.environment(spec)}
    fake.enqueue(Reply((Text("priced"),), usage=(1000, 200)))
    agent, session_id = start(env, workspace)  # config.toml: [retry] only, no [models.*]
    with agent:
        _, updates = agent.prompt(session_id, "go")
    [usage] = [u for u in updates if u["sessionUpdate"] == "usage_update"]
    assert usage["cost"]["currency"] == "USD"
    assert usage["cost"]["amount"] == pytest.approx(dollars)
    assert usage["size"] == (400_000 if spec.startswith("openai") else 200_000)
