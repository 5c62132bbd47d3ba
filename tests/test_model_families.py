"""Guidance by model family whichever provider serves the model, and the API's own line
(``agent_core.context.families``)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from agent_core.context.families import API_GUIDANCE, FAMILY_GUIDANCE, family, family_guidance
from agent_core.context.prompt import Environment, build_system_prompt
from tests.support.fake_llm import FakeLLM, Reply, Text
from tests.support.raw import RawAgent

CLAUDE, GPT = FAMILY_GUIDANCE["claude"], FAMILY_GUIDANCE["gpt"]
CHAT = API_GUIDANCE["openai-chat"]


@pytest.mark.parametrize(
    ("model_id", "expected"),
    [
        ("claude-sonnet-4-5", "claude"),
        ("anthropic/claude-sonnet-4", "claude"),
        ("us.anthropic.claude-3-7-sonnet-20250219-v1:0", "claude"),
        ("claude-opus-4@20250514", "claude"),
        ("gpt-5", "gpt"),
        ("openai/gpt-4o-mini", "gpt"),
        ("o3", "gpt"),
        ("o4-mini", "gpt"),
        ("gpt-oss-120b", "gpt"),
        ("google/gemini-2.5-pro", "gemini"),
        ("gemini-2.5-flash", "gemini"),
        ("qwen/qwen3-coder", "qwen"),
        ("Qwen2.5-Coder-32B-Instruct", "qwen"),
        ("deepseek-chat", "deepseek"),
        ("deepseek-r1-distill-qwen-32b", "deepseek"),
        ("meta-llama/llama-3.3-70b-instruct", "llama"),
        ("meta.llama3-1-70b-instruct-v1:0", "llama"),
        ("codellama:13b", "llama"),
        ("mistralai/devstral-small", "mistral"),
        ("mistral-large-latest", "mistral"),
        ("my-finetune", None),
        ("phi-4", None),
        ("pro3-model", None),  # "o3" inside a word is not the o-series
    ],
)
def test_the_family_comes_from_the_models_name(model_id: str, expected: str | None) -> None:
    assert family(model_id) == expected


@pytest.mark.parametrize(
    ("spec", "api", "lines"),
    [
        ("openrouter:anthropic/claude-sonnet-4", "openai-chat", (CLAUDE, CHAT)),
        ("bedrock:us.anthropic.claude-sonnet-4-20250514-v1:0", "bedrock", (CLAUDE,)),
        ("vertex:claude-sonnet-4@20250514", "vertex", (CLAUDE,)),
        ("work:gpt-5", "openai", (GPT,)),  # a named provider speaking the Responses API
        ("work:gpt-5", "openai-chat", (GPT, CHAT)),
        ("openai-chat:claude-sonnet-4-5", "", (CLAUDE, CHAT)),  # not the Chat family line only
        ("anthropic:claude-sonnet-4-5", "", (CLAUDE,)),
        ("openai:gpt-5", "", (GPT,)),
        ("ollama:my-finetune", "openai-chat", (CHAT,)),  # unknown model: the API's line only
        ("anthropic:my-finetune", "", ()),
        ("scripted:echo", "scripted", ()),
    ],
)
def test_guidance_follows_the_family_and_the_api_not_the_provider(
    spec: str, api: str, lines: tuple[str, ...]
) -> None:
    assert family_guidance(spec, api) == " ".join(lines)


def test_the_family_line_is_in_the_system_prompt(tmp_path: Path) -> None:
    environment = Environment(tmp_path, (), "/bin/sh", date(2026, 1, 1))
    text = build_system_prompt(environment, "openrouter:anthropic/claude-sonnet-4").text
    assert CLAUDE in text and CHAT not in text  # "openrouter" names no API by itself
    chat = build_system_prompt(environment, "openrouter:x/claude-4", api="openai-chat").text
    assert f"{CLAUDE} {CHAT}" in chat and GPT not in chat
    assert GPT not in build_system_prompt(environment, "openrouter:claude-4", subagent=True).text


@pytest.mark.parametrize(
    ("env_model", "env_config"),
    [
        ("openai-chat:claude-sonnet-4-5", None),
        ("work:claude-sonnet-4-5", '[providers.work]\napi = "openai-chat"\nbase_url = "{url}"\n'),
    ],
)
def test_a_claude_model_behind_chat_completions_gets_both_lines(
    agent_env: dict[str, str],
    heron_home: Path,
    fake: FakeLLM,
    workspace: Path,
    env_model: str,
    env_config: str | None,
) -> None:
    if env_config is not None:
        (heron_home / "config.toml").write_text(env_config.format(url=f"{fake.url}/v1"))
    fake.enqueue(Reply((Text("Hello."),)))
    with RawAgent({**agent_env, **fake.environment(env_model)}) as agent:
        agent.initialize({})
        assert agent.prompt(agent.new_session(workspace), "hi")[0] == "end_turn"
    system = fake.requests[0].body["messages"][0]
    assert system["role"] == "system" and f"{CLAUDE} {CHAT}" in str(system["content"])
