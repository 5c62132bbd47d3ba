"""The fake LLM server is faithful: the real ``anthropic`` and ``openai`` SDKs parse its streams.

Each test drives a real async SDK client in-process against ``FakeLLM`` with retries off, so
what the SDKs' own stream helpers accumulate is what ``heron acp`` will see in a subprocess.
"""

from __future__ import annotations

import json
import ssl
import time
from typing import Any
from unittest.mock import ANY

import anthropic
import anyio
import httpx2
import openai
import pytest
import trustme

from tests.support.fake_llm import Failure, FakeLLM, Reasoning, Reply, Text, ToolCall

pytestmark = pytest.mark.anyio

USER: Any = [{"role": "user", "content": "hi"}]
ARGS = {"path": "src/app.py", "lines": [1, 20], "note": "ünïcode ✓"}
ANTHROPIC_TOOL: Any = {"name": "read_file", "input_schema": {"type": "object"}}
RESPONSES_TOOL: Any = {"type": "function", "name": "read_file", "parameters": {"type": "object"}}
CHAT_TOOL: Any = {"type": "function", "function": {"name": "read_file", "parameters": {}}}
# Cut after 4 events: mid-message in every format (after the first text delta for Anthropic).
CUT = Reply((Text("this stream is cut short"),), cut_after_events=4)


def claude(fake: FakeLLM, retries: int = 0) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(api_key="test", base_url=fake.url, max_retries=retries)


def gpt(fake: FakeLLM, retries: int = 0) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(api_key="test", base_url=fake.url + "/v1", max_retries=retries)


# --- Anthropic Messages ------------------------------------------------------------------------


async def test_anthropic_text_streams_in_pieces(fake: FakeLLM) -> None:
    fake.enqueue(Reply((Text("Hello, streaming world!"),), chunk_chars=5, usage=(42, 7)))
    async with (
        claude(fake) as client,
        client.messages.stream(model="claude-test", max_tokens=64, messages=USER) as stream,
    ):
        pieces = [text async for text in stream.text_stream]
        message = await stream.get_final_message()
    assert pieces == ["Hello", ", str", "eamin", "g wor", "ld!"]
    assert [b.type for b in message.content] == ["text"]
    assert (
        message.content[0].type == "text" and message.content[0].text == "Hello, streaming world!"
    )
    assert (message.stop_reason, message.model) == ("end_turn", "claude-test")
    assert (message.usage.input_tokens, message.usage.output_tokens) == (42, 7)
    kinds = [kind for _, kind in fake.events_sent]
    assert kinds[:3] == ["message_start", "content_block_start", "ping"]
    assert kinds[-2:] == ["message_delta", "message_stop"]


async def test_anthropic_thinking_then_text(fake: FakeLLM) -> None:
    fake.enqueue(Reply((Reasoning("First, look at the file."), Text("Done."))))
    async with (
        claude(fake) as client,
        client.messages.stream(model="claude-test", max_tokens=64, messages=USER) as stream,
    ):
        thinking = [e.thinking async for e in stream if e.type == "thinking"]
        message = await stream.get_final_message()
    assert len(thinking) > 1 and "".join(thinking) == "First, look at the file."
    block, text = message.content
    assert block.type == "thinking" and block.thinking == "First, look at the file."
    assert block.signature  # arrives in a signature_delta just before content_block_stop
    assert text.type == "text" and text.text == "Done."


async def test_anthropic_tool_call_arguments_arrive_in_pieces(fake: FakeLLM) -> None:
    fake.enqueue(Reply((Text("Reading."), ToolCall("read_file", ARGS))))
    async with (
        claude(fake) as client,
        client.messages.stream(
            model="claude-test", max_tokens=64, messages=USER, tools=[ANTHROPIC_TOOL]
        ) as stream,
    ):
        partial = [e.partial_json async for e in stream if e.type == "input_json"]
        message = await stream.get_final_message()
    assert len(partial) > 3 and json.loads("".join(partial)) == ARGS
    tool = message.content[1]
    assert tool.type == "tool_use" and tool.id.startswith("toolu_")
    assert (tool.name, tool.input) == ("read_file", ARGS)
    assert message.stop_reason == "tool_use"


async def test_anthropic_stop_reasons(fake: FakeLLM) -> None:
    fake.enqueue(
        Reply((Text("trunc"),), stop="max_tokens"),
        Reply((ToolCall("read_file", {}, call_id="toolu_given"),)),
        Reply((Text("I can't help with that."),), stop="refusal"),
    )
    results: list[anthropic.types.Message] = []
    async with claude(fake) as client:
        for _ in range(3):
            async with client.messages.stream(
                model="claude-test", max_tokens=64, messages=USER
            ) as stream:
                results.append(await stream.get_final_message())
    assert [m.stop_reason for m in results] == ["max_tokens", "tool_use", "refusal"]
    tool = results[1].content[0]
    assert tool.type == "tool_use" and (tool.id, tool.input) == ("toolu_given", {})
    assert results[2].stop_details is not None and results[2].stop_details.type == "refusal"


async def test_anthropic_rate_limit_carries_retry_after(fake: FakeLLM) -> None:
    fake.enqueue(Failure(429, retry_after=3, message="slow down"))
    async with claude(fake) as client:
        with pytest.raises(anthropic.RateLimitError) as caught:
            await client.messages.create(
                model="claude-test", max_tokens=64, messages=USER, stream=True
            )
    assert caught.value.status_code == 429
    assert caught.value.response.headers["retry-after"] == "3"
    error = {"type": "rate_limit_error", "message": "slow down"}
    assert caught.value.body == {"type": "error", "error": error, "request_id": ANY}
    assert len(fake.requests) == 1


async def test_anthropic_cut_stream_raises(fake: FakeLLM) -> None:
    fake.enqueue(CUT)
    texts: list[str] = []
    async with claude(fake) as client:
        with pytest.raises((httpx2.TransportError, anthropic.APIConnectionError)):
            async with client.messages.stream(
                model="claude-test", max_tokens=64, messages=USER
            ) as stream:
                async for text in stream.text_stream:
                    texts.append(text)
    assert texts == ["this str"]  # the first piece arrived, then the body broke off
    assert len(fake.events_sent) == 4


async def test_anthropic_request_is_recorded(fake: FakeLLM) -> None:
    fake.enqueue(Reply((Text("ok"),)))
    async with (
        claude(fake) as client,
        client.messages.stream(
            model="claude-test",
            max_tokens=64,
            messages=USER,
            tools=[ANTHROPIC_TOOL],
            system="Be brief",
        ) as stream,
    ):
        await stream.get_final_message()
    (request,) = fake.requests
    assert request.path == "/v1/messages"
    assert request.headers["authorization"] == "Bearer test"  # this SDK no longer sends x-api-key
    assert request.headers["anthropic-version"]
    assert request.body["model"] == "claude-test"
    assert request.body["messages"] == USER
    assert request.body["tools"] == [ANTHROPIC_TOOL]
    assert request.body["system"] == "Be brief"
    assert fake.finished(request) >= request.started_at


# --- OpenAI Responses --------------------------------------------------------------------------


async def test_responses_text_streams_in_pieces(fake: FakeLLM) -> None:
    fake.enqueue(Reply((Text("Hello, streaming world!"),), chunk_chars=5, usage=(42, 7)))
    async with gpt(fake) as client, client.responses.stream(model="gpt-test", input="hi") as stream:
        pieces = [e.delta async for e in stream if e.type == "response.output_text.delta"]
        response = await stream.get_final_response()
    assert pieces == ["Hello", ", str", "eamin", "g wor", "ld!"]
    assert response.output_text == "Hello, streaming world!"
    assert (response.status, response.model) == ("completed", "gpt-test")
    assert response.usage is not None
    usage = response.usage
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (42, 7, 49)
    assert usage.input_tokens_details.cached_tokens == 0
    assert usage.output_tokens_details.reasoning_tokens == 0


async def test_responses_reasoning_summary_then_text(fake: FakeLLM) -> None:
    fake.enqueue(Reply((Reasoning("First, look at the file."), Text("Done."))))
    async with (
        gpt(fake) as client,
        client.responses.stream(
            model="gpt-test", input="hi", include=["reasoning.encrypted_content"]
        ) as stream,
    ):
        deltas = [
            e.delta async for e in stream if e.type == "response.reasoning_summary_text.delta"
        ]
        response = await stream.get_final_response()
    assert len(deltas) > 1 and "".join(deltas) == "First, look at the file."
    reasoning, message = response.output
    assert reasoning.type == "reasoning" and reasoning.id.startswith("rs_")
    assert [s.text for s in reasoning.summary] == ["First, look at the file."]
    assert reasoning.encrypted_content  # sent back on the next turn when store=false
    assert message.type == "message" and response.output_text == "Done."


async def test_responses_tool_call_raw_events(fake: FakeLLM) -> None:
    fake.enqueue(Reply((ToolCall("read_file", ARGS),)))
    async with gpt(fake) as client:
        stream = await client.responses.create(
            model="gpt-test", input="hi", tools=[RESPONSES_TOOL], stream=True
        )
        events = [event async for event in stream]
    assert [e.sequence_number for e in events] == list(range(len(events)))
    kinds = [e.type for e in events]
    assert kinds[:3] == ["response.created", "response.in_progress", "response.output_item.added"]
    assert kinds[-3:] == [
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    deltas = [e.delta for e in events if e.type == "response.function_call_arguments.delta"]
    assert len(deltas) > 3 and json.loads("".join(deltas)) == ARGS
    final = events[-1]
    assert final.type == "response.completed"
    (call,) = final.response.output
    assert call.type == "function_call" and call.call_id.startswith("call_")
    assert (call.name, json.loads(call.arguments)) == ("read_file", ARGS)


async def test_responses_max_tokens_is_incomplete(fake: FakeLLM) -> None:
    fake.enqueue(Reply((Text("trunc"),), stop="max_tokens"))
    async with gpt(fake) as client:
        stream = await client.responses.create(model="gpt-test", input="hi", stream=True)
        events = [event async for event in stream]
    final = events[-1]
    assert final.type == "response.incomplete"
    assert final.response.status == "incomplete"
    assert final.response.incomplete_details is not None
    assert final.response.incomplete_details.reason == "max_output_tokens"
    assert final.response.output_text == "trunc"


async def test_responses_refusal_part(fake: FakeLLM) -> None:
    fake.enqueue(Reply((Text("I can't help with that."),), stop="refusal"))
    async with gpt(fake) as client, client.responses.stream(model="gpt-test", input="hi") as stream:
        deltas = [e.delta async for e in stream if e.type == "response.refusal.delta"]
        response = await stream.get_final_response()
    assert "".join(deltas) == "I can't help with that."
    (message,) = response.output
    assert message.type == "message"
    assert [(p.type, getattr(p, "refusal", None)) for p in message.content] == [
        ("refusal", "I can't help with that.")
    ]


async def test_responses_rate_limit_carries_retry_after(fake: FakeLLM) -> None:
    fake.enqueue(Failure(429, retry_after=1.5, message="slow down"))
    async with gpt(fake) as client:
        with pytest.raises(openai.RateLimitError) as caught:
            await client.responses.create(model="gpt-test", input="hi", stream=True)
    assert caught.value.response.headers["retry-after"] == "1.5"
    assert caught.value.body == {
        "message": "slow down",
        "type": "requests",
        "param": None,
        "code": "rate_limit_exceeded",
    }


async def test_responses_cut_stream_raises(fake: FakeLLM) -> None:
    fake.enqueue(CUT)
    async with gpt(fake) as client:
        with pytest.raises((httpx2.TransportError, openai.APIConnectionError)):
            async with client.responses.stream(model="gpt-test", input="hi") as stream:
                await stream.get_final_response()


async def test_responses_request_is_recorded(fake: FakeLLM) -> None:
    fake.enqueue(Reply((Text("ok"),)))
    async with (
        gpt(fake) as client,
        client.responses.stream(
            model="gpt-test", input="hi", instructions="Be brief", tools=[RESPONSES_TOOL]
        ) as stream,
    ):
        await stream.get_final_response()
    (request,) = fake.requests
    assert request.path == "/v1/responses"
    assert request.headers["authorization"] == "Bearer test"
    assert request.body["model"] == "gpt-test"
    assert (request.body["input"], request.body["instructions"]) == ("hi", "Be brief")
    assert request.body["tools"] == [RESPONSES_TOOL]


# --- OpenAI Chat Completions -------------------------------------------------------------------


async def test_chat_text_streams_in_pieces_with_usage(fake: FakeLLM) -> None:
    fake.enqueue(Reply((Text("Hello, streaming world!"),), chunk_chars=5, usage=(42, 7)))
    async with (
        gpt(fake) as client,
        client.chat.completions.stream(
            model="gpt-test", messages=USER, stream_options={"include_usage": True}
        ) as stream,
    ):
        # The first chunk carries role and an empty content string, as the real API's does.
        pieces = [e.delta async for e in stream if e.type == "content.delta" and e.delta]
        completion = await stream.get_final_completion()
    assert pieces == ["Hello", ", str", "eamin", "g wor", "ld!"]
    (choice,) = completion.choices
    assert (choice.message.content, choice.finish_reason) == ("Hello, streaming world!", "stop")
    assert completion.usage is not None
    usage = completion.usage
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (42, 7, 49)
    assert [kind for _, kind in fake.events_sent][-1] == "[DONE]"


async def test_chat_reasoning_content_then_text(fake: FakeLLM) -> None:
    fake.enqueue(Reply((Reasoning("First, look at the file."), Text("Done."))))
    async with gpt(fake) as client:
        stream = await client.chat.completions.create(model="gpt-test", messages=USER, stream=True)
        chunks = [chunk async for chunk in stream]
    assert chunks[0].choices[0].delta.role == "assistant"
    reasoning = [getattr(c.choices[0].delta, "reasoning_content", None) for c in chunks]
    assert "".join(r for r in reasoning if r) == "First, look at the file."
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "Done."
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert all(c.usage is None for c in chunks)  # no usage chunk unless include_usage


async def test_chat_tool_call_arguments_arrive_in_pieces(fake: FakeLLM) -> None:
    fake.enqueue(Reply((ToolCall("read_file", ARGS), ToolCall("read_file", {"path": "b"}))))
    async with (
        gpt(fake) as client,
        client.chat.completions.stream(
            model="gpt-test", messages=USER, tools=[CHAT_TOOL]
        ) as stream,
    ):
        kind = "tool_calls.function.arguments.delta"
        deltas = [e async for e in stream if e.type == kind]
        completion = await stream.get_final_completion()
    assert len([d for d in deltas if d.index == 0]) > 3
    (choice,) = completion.choices
    assert choice.finish_reason == "tool_calls"
    calls = choice.message.tool_calls or []
    assert [c.id[:5] for c in calls] == ["call_", "call_"]
    assert [(c.type, c.function.name) for c in calls] == [("function", "read_file")] * 2
    assert [json.loads(c.function.arguments) for c in calls] == [ARGS, {"path": "b"}]


async def test_chat_finish_reasons(fake: FakeLLM) -> None:
    fake.enqueue(Reply((Text("trunc"),), stop="max_tokens"), Reply((Text("no"),), stop="refusal"))
    finishes: list[str | None] = []
    async with gpt(fake) as client:
        for _ in range(2):
            stream = await client.chat.completions.create(
                model="gpt-test", messages=USER, stream=True
            )
            finishes += [c.choices[0].finish_reason async for c in stream if c.choices]
    assert [f for f in finishes if f] == ["length", "content_filter"]


async def test_chat_rate_limit_carries_retry_after(fake: FakeLLM) -> None:
    fake.enqueue(Failure(429, retry_after=2, message="slow down"))
    async with gpt(fake) as client:
        with pytest.raises(openai.RateLimitError) as caught:
            await client.chat.completions.create(model="gpt-test", messages=USER, stream=True)
    assert caught.value.response.headers["retry-after"] == "2"
    assert caught.value.status_code == 429


async def test_chat_cut_stream_raises(fake: FakeLLM) -> None:
    fake.enqueue(CUT)
    async with gpt(fake) as client:
        stream = await client.chat.completions.create(model="gpt-test", messages=USER, stream=True)
        with pytest.raises((httpx2.TransportError, openai.APIConnectionError)):
            async for _ in stream:
                pass


async def test_chat_request_is_recorded(fake: FakeLLM) -> None:
    fake.enqueue(Reply((Text("ok"),)))
    async with gpt(fake) as client:
        stream = await client.chat.completions.create(
            model="gpt-test", messages=USER, tools=[CHAT_TOOL], stream=True
        )
        async for _ in stream:
            pass
    (request,) = fake.requests
    assert request.path == "/v1/chat/completions"
    assert (request.body["model"], request.body["messages"]) == ("gpt-test", USER)
    assert request.body["tools"] == [CHAT_TOOL]


# --- The server itself -------------------------------------------------------------------------


async def test_events_stream_before_the_reply_is_finished(fake: FakeLLM) -> None:
    # hold_open keeps message_delta/message_stop back, so the client must see text first.
    fake.enqueue(Reply((Text("one two three"),), chunk_chars=4, chunk_delay=0.01, hold_open=0.3))
    async with (
        claude(fake) as client,
        client.messages.stream(model="claude-test", max_tokens=64, messages=USER) as stream,
    ):
        async for _ in stream.text_stream:
            first_text_at, sent = time.monotonic(), [kind for _, kind in fake.events_sent]
            break
        else:
            raise AssertionError("no text")
        await stream.until_done()
    assert "message_delta" not in sent and "message_stop" not in sent
    assert fake.events_sent[-1][1] == "message_stop"
    assert first_text_at < fake.events_sent[-1][0]


async def test_retry_after_is_honoured_by_sdk_retries(fake: FakeLLM) -> None:
    fake.enqueue(Failure(529, retry_after=0.2), Reply((Text("ok"),)))
    async with (
        claude(fake, retries=1) as client,
        client.messages.stream(model="claude-test", max_tokens=64, messages=USER) as stream,
    ):
        message = await stream.get_final_message()
    assert message.content[0].type == "text" and message.content[0].text == "ok"
    first, second = fake.requests
    assert first.status == 529 and first.answered_at is not None
    # The client cannot see the 529 before its status line went out, so its wait starts later.
    assert second.started_at - first.answered_at >= 0.2


async def test_empty_queue_answers_500_naming_the_request_without_retries(fake: FakeLLM) -> None:
    async with gpt(fake, retries=2) as client:
        with pytest.raises(openai.InternalServerError, match="no reply enqueued for request #1"):
            await client.chat.completions.create(model="gpt-test", messages=USER, stream=True)
    assert len(fake.requests) == 1  # x-should-retry: false stops the SDK's retries


async def test_non_streaming_request_is_refused(fake: FakeLLM) -> None:
    fake.enqueue(Reply((Text("unused"),)))
    async with claude(fake) as client:
        with pytest.raises(anthropic.BadRequestError, match='"stream": true'):
            await client.messages.create(model="claude-test", max_tokens=64, messages=USER)


async def test_hold_open_ends_when_the_client_cancels(fake: FakeLLM) -> None:
    fake.enqueue(Reply((Text("partial"),), hold_open=5))
    async with gpt(fake) as client:
        stream = await client.responses.create(model="gpt-test", input="hi", stream=True)
        async with stream:
            async for event in stream:
                if event.type == "response.output_item.done":
                    break
    (request,) = fake.requests
    with anyio.fail_after(2):
        while request.finished_at is None:  # noqa: ASYNC110 - a server thread sets it
            await anyio.sleep(0.01)
    assert request.client_closed and request.finished_at is not None
    assert request.finished_at - request.started_at < 1
    assert "response.completed" not in [kind for _, kind in fake.events_sent]


async def test_a_server_context_answers_over_https_on_one_connection() -> None:
    """Given a server context, the fake answers over HTTPS, as the real APIs do; the SDK keeps
    the connection for its next request, as each request's ``client_port`` shows."""
    authority = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(context)
    trusted = ssl.create_default_context()
    authority.configure_trust(trusted)
    with FakeLLM(tls=context) as fake:
        assert fake.url.startswith("https://127.0.0.1:")
        fake.enqueue(Reply((Text("One."),)), Reply((Text("Two."),)))
        http = openai.DefaultAsyncHttpxClient(verify=trusted)
        async with openai.AsyncOpenAI(
            api_key="t", base_url=fake.url + "/v1", http_client=http
        ) as client:
            for _ in range(2):
                response = await client.chat.completions.create(
                    model="gpt-test", messages=USER, stream=True
                )
                assert "".join(
                    [c.choices[0].delta.content or "" async for c in response if c.choices]
                )
        first, second = fake.requests
    assert first.client_port == second.client_port


def test_wait_for_requests_times_out_clearly(fake: FakeLLM) -> None:
    with pytest.raises(TimeoutError, match="wanted 1 requests"):
        fake.wait_for_requests(1, timeout=0.05)
