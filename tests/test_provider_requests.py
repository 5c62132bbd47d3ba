"""The pure request builders of each provider adapter: roles, tool pairs, cache breakpoints."""

from __future__ import annotations

import json

import pytest
from msgspec.structs import replace

from agent_core.messages import (
    AssistantMessage,
    ImagePart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    UserMessage,
)
from agent_core.models.anthropic import AnthropicModel, anthropic_body, to_anthropic_params
from agent_core.models.base import UNSEEN_IMAGE, ModelRequest, ToolSpec
from agent_core.models.catalog import ModelInfo, describe
from agent_core.models.openai import OpenAIResponsesModel, responses_body, to_responses_params
from agent_core.models.openai_chat import OpenAIChatModel, chat_body, to_chat_params
from agent_core.providers import ProviderSettings

TOOL = ToolSpec(
    "read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}}
)
HISTORY = (
    UserMessage((TextPart("fix it"), ImagePart("AAAA", "image/png"))),
    AssistantMessage(
        (
            ThinkingPart("look first", "sig"),
            TextPart("Reading."),
            ToolCallPart("c1", "read_file", {"path": "a.py"}),
        )
    ),
    UserMessage((ToolResultPart("c1", "print(1)"), TextPart("and be quick"))),
)
REQUEST = ModelRequest(
    "You are Heron.", HISTORY, (TOOL,), max_tokens=50_000, reasoning_effort="low"
)
INFO = ModelInfo(200_000, 16_384, images=True)


def test_anthropic_request_has_cache_breakpoints_and_ordered_tool_results() -> None:
    params = to_anthropic_params("claude-x", REQUEST, INFO)
    assert params["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert params["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert params["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert params["max_tokens"] == 16_384
    user, assistant, results = params["messages"]
    assert user["content"][1]["source"] == {
        "type": "base64",
        "media_type": "image/png",
        "data": "AAAA",
    }
    assert [b["type"] for b in assistant["content"]] == ["thinking", "text", "tool_use"]
    assert assistant["content"][0]["signature"] == "sig"
    assert [b["type"] for b in results["content"]] == ["tool_result", "text"]
    assert results["content"][-1]["cache_control"] == {"type": "ephemeral"}  # the latest turn
    assert "cache_control" not in user["content"][-1]


def test_anthropic_drops_empty_and_unsigned_blocks_and_keeps_alternation() -> None:
    history = (
        UserMessage((TextPart("a"),)),
        AssistantMessage((ThinkingPart("unsigned"), TextPart(""))),
        UserMessage((TextPart("b"),)),
    )
    messages = to_anthropic_params("m", ModelRequest("s", history), INFO)["messages"]
    assert [m["role"] for m in messages] == ["user"]
    assert [b["text"] for b in messages[0]["content"]] == ["a", "b"]


def test_responses_input_pairs_calls_with_outputs() -> None:
    params = to_responses_params("gpt-5", REQUEST, ModelInfo(400_000, 32_768, images=True))
    kinds = [item.get("type", item.get("role")) for item in params["input"]]
    assert kinds == ["user", "message", "function_call", "function_call_output", "user"]
    assert params["input"][2] == {
        "type": "function_call",
        "call_id": "c1",
        "name": "read_file",
        "arguments": '{"path":"a.py"}',
    }
    assert params["input"][0]["content"][1] == {
        "type": "input_image",
        "image_url": "data:image/png;base64,AAAA",
    }
    assert params["instructions"] == "You are Heron."
    assert params["tools"][0]["name"] == "read_file"
    assert params["reasoning"] == {"effort": "low", "summary": "auto"}
    assert params["store"] is False


def test_chat_messages_put_tool_results_right_after_the_call() -> None:
    params = to_chat_params("local-model", REQUEST, ModelInfo())
    roles = [m["role"] for m in params["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "user"]
    assistant = params["messages"][2]
    assert assistant["tool_calls"][0]["function"] == {
        "name": "read_file",
        "arguments": '{"path":"a.py"}',
    }
    assert params["messages"][3] == {"role": "tool", "tool_call_id": "c1", "content": "print(1)"}
    assert params["messages"][4]["content"] == "and be quick"
    assert params["stream_options"] == {"include_usage": True}


def test_catalog_knows_families_and_config_overrides_them() -> None:
    from agent_core.models.settings import ModelSettings

    assert describe("anthropic", "claude-sonnet-4-5").context_window == 200_000
    assert describe("openai-chat", "qwen3-coder").images is False
    custom = describe(
        "openai-chat",
        "qwen3-coder",
        ModelSettings(context_window=32_768, input_price=1, output_price=2),
    )
    assert custom.context_window == 32_768
    assert custom.cost(1_000_000, 500_000) == 2.0
    assert describe("anthropic", "claude-x").cost(10, 10) is None  # prices only when configured
    cached = describe("anthropic", "claude-x", ModelSettings(input_price=10, output_price=20))
    assert (
        cached.cost(0, 0, cache_read=1_000_000, cache_write=1_000_000) == 1.0 + 12.5
    )  # 10% and 125% of input


def test_a_model_that_cannot_see_images_gets_a_note_in_place_of_each() -> None:
    shot = ToolResultPart("c1", "a chart", images=(ImagePart("BBBB", "image/png"),))
    history = (*HISTORY[:2], UserMessage((shot,)))
    request, blind = ModelRequest("s", history), ModelInfo(images=False)
    for params in (
        to_anthropic_params("claude-x", request, blind),
        to_responses_params("gpt-x", request, blind),
        to_chat_params("local", request, blind),
    ):
        sent = str(params)
        assert "AAAA" not in sent and "BBBB" not in sent and UNSEEN_IMAGE in sent
        assert "a chart\\n[1 image(s) left out; this model cannot see images]" in sent
    seeing = to_chat_params("local", request, ModelInfo(images=True))["messages"]
    assert seeing[-1]["content"] == [
        {"type": "text", "text": "The image(s) the c1 tool call returned:"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,BBBB"}},
    ]


BUILDERS = {
    "anthropic": (AnthropicModel, to_anthropic_params, anthropic_body),
    "openai": (OpenAIResponsesModel, to_responses_params, responses_body),
    "openai-chat": (OpenAIChatModel, to_chat_params, chat_body),
}
GROWING = (
    *HISTORY,
    AssistantMessage((TextPart("half an emoji: \ud83d"),)),
    UserMessage((TextPart("go on"),)),
    AssistantMessage((ThinkingPart("unsigned"),)),  # sends nothing to Anthropic
    UserMessage((TextPart("merged with the one before, for Anthropic"),)),
    AssistantMessage((ToolCallPart("c2", "read_file", {"path": "b.py"}),)),
    UserMessage((ToolResultPart("c2", "x", images=(ImagePart("BBBB", "image/png"),)),)),
)


@pytest.mark.parametrize("provider", list(BUILDERS))
@pytest.mark.parametrize("images", [True, False])
def test_the_bytes_sent_are_the_request_built_each_time_from_scratch(
    provider: str, images: bool
) -> None:
    """What the adapters send (each message encoded once, then reused) is, request after
    request, exactly the request the pure builder makes from the whole history."""
    model, build, body = BUILDERS[provider]
    info = ModelInfo(200_000, 16_384, images=images)
    encoded = model("m", ProviderSettings(), info)._history  # the adapter's own cache
    for length in range(1, len(GROWING) + 1):
        for note in (None, "3 requests left"):  # a turn's budget note comes and goes
            request = replace(REQUEST, messages=GROWING[:length], note=note)
            sent = json.loads(body("m", request, info, encoded))
            assert sent == {**build("m", request, info), "stream": True}, (length, note)
    changed = (*GROWING[:-1], UserMessage((TextPart("the last message, replaced"),)))
    request = replace(REQUEST, messages=changed)
    assert json.loads(body("m", request, info, encoded)) == {
        **build("m", request, info),
        "stream": True,
    }


NOTE = "[Heron: request 9 of 10]"


def test_a_budget_note_follows_the_history_after_the_cache_breakpoint() -> None:
    """The note is sent after everything the prompt cache keeps, so the cached prefix is the
    same with and without it; and only in the request that carries it."""
    noted = replace(REQUEST, note=NOTE)
    *_, results = to_anthropic_params("claude-x", noted, INFO)["messages"]
    *kept, cached, note = results["content"]
    assert cached["cache_control"] == {"type": "ephemeral"} and "cache_control" not in note
    assert note == {"type": "text", "text": NOTE}
    plain = to_anthropic_params("claude-x", REQUEST, INFO)["messages"][-1]["content"]
    assert [*kept, cached] == plain
    assistant_last = replace(noted, messages=HISTORY[:2])  # a user message of its own
    assert to_anthropic_params("c", assistant_last, INFO)["messages"][-1] == {
        "role": "user",
        "content": [{"type": "text", "text": NOTE}],
    }
    responses = to_responses_params("gpt-x", noted, INFO)["input"]
    assert responses[-1] == {"role": "user", "content": [{"type": "input_text", "text": NOTE}]}
    assert responses[:-1] == to_responses_params("gpt-x", REQUEST, INFO)["input"]
    chat = to_chat_params("local", noted, INFO)["messages"]
    assert chat[-1] == {"role": "user", "content": NOTE}
    assert chat[:-1] == to_chat_params("local", REQUEST, INFO)["messages"]


def test_tool_choice_none_keeps_the_tools_listed_and_forbids_calling_them() -> None:
    """The summary request at a turn's limit: the tools stay (the cached prefix, and the
    history's calls need them), and the model may not call one."""
    closing = replace(REQUEST, tool_choice="none")
    anthropic = to_anthropic_params("claude-x", closing, INFO)
    assert anthropic["tool_choice"] == {"type": "none"} and anthropic["tools"]
    responses = to_responses_params("gpt-x", closing, INFO)
    assert responses["tool_choice"] == "none" and responses["tools"]
    chat = to_chat_params("local", closing, INFO)
    assert chat["tool_choice"] == "none" and chat["tools"]
    for build in (to_anthropic_params, to_responses_params, to_chat_params):
        assert "tool_choice" not in build("m", REQUEST, INFO)
