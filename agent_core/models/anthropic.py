"""Anthropic Messages API adapter (``anthropic:<model>``), streaming text, thinking and tool use.

The SDK costs ~1 s and ~75 MB to import, so it is imported on first use or by ``warm_up`` in a
worker thread once a session exists. Prompt-cache breakpoints go on the system prompt, the tool
definitions and the latest message, so every turn re-reads the cached prefix.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
from msgspec.structs import replace

from agent_core.errors import ModelConfigError, StreamInterrupted
from agent_core.files.json_text import json_object
from agent_core.messages import (
    AssistantMessage,
    ImagePart,
    Message,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)
from agent_core.models import tls
from agent_core.models.assembly import ResponseAssembler
from agent_core.models.base import FinishReason, ModelRequest, StreamEvent, seen_by, visible
from agent_core.models.body import JSON_HEADERS, EncodedHistory, dumps, with_array
from agent_core.models.catalog import CataloguedModel, ModelInfo
from agent_core.models.clients import connect_ahead, shared
from agent_core.models.faults import after_start, from_status
from agent_core.models.platforms import PLATFORMS, platform_client
from agent_core.models.streams import read_to_end
from agent_core.providers import PROVIDER_ENV, ProviderSettings

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

KEY_VARIABLE = PROVIDER_ENV["anthropic"][0]
CACHE = {"type": "ephemeral"}
LABELS = {"anthropic": "Anthropic", "bedrock": "AWS Bedrock", "vertex": "Google Vertex AI"}
THINKING_BUDGET = {"low": 2048, "medium": 8192, "high": 24576}
STOP: dict[str | None, FinishReason] = {
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "pause_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "refusal": "refusal",
}


class AnthropicModel(CataloguedModel):
    provider = "anthropic"

    def __init__(self, model_id: str, provider: ProviderSettings, info: ModelInfo) -> None:
        super().__init__(model_id, info)
        self.provider = provider.name or self.provider  # bedrock, vertex, a named provider
        self._provider = provider
        self._label = LABELS.get(provider.name or "anthropic", provider.name)  # in messages
        self._key = provider.key_variable or KEY_VARIABLE  # named in the fix for a bad key
        self._client: AsyncAnthropic | None = None
        self._history = EncodedHistory(lambda m: _encoded(seen_by(m, info.images)))

    def warm_up(self) -> None:
        self.learn()
        with contextlib.suppress(ModelConfigError):  # said again by the first request
            self._build()

    def _build(self) -> None:
        if self._client is None:
            import anthropic

            provider = self._provider
            if provider.api in PLATFORMS:
                self._client = shared("anthropic", provider, lambda: platform_client(provider))
                return
            self._client = shared(
                "anthropic",
                provider,
                lambda: anthropic.AsyncAnthropic(
                    api_key=provider.api_key,
                    base_url=provider.base_url,
                    max_retries=0,
                    default_headers=dict(provider.headers) or None,
                    http_client=anthropic.DefaultAsyncHttpxClient(verify=tls.context()),
                ),
            )

    async def connect_ahead(self) -> None:
        """The connection the next request will use, opened now (once ``warm_up`` built the
        client; nothing before)."""
        await connect_ahead(self._client)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        await self.learned()
        if self._client is None:
            await anyio.to_thread.run_sync(self._build)
        assert self._client is not None
        assembler = ResponseAssembler()
        async with self._faults(assembler):
            async for event in self._events(self._client, request, assembler):
                yield event

    async def check(self) -> None:
        """Ask the models endpoint for this model: reachable, key accepted, model known.
        Raises the ``ModelError`` a request would."""
        if self._client is None:
            await anyio.to_thread.run_sync(self._build)
        assert self._client is not None
        async with self._faults(ResponseAssembler()):
            await self._client.models.retrieve(self.model_id)

    @asynccontextmanager
    async def _faults(self, assembler: ResponseAssembler) -> AsyncGenerator[None, None]:
        """The SDK's exceptions as the core's errors (``faults.py`` classifies them)."""
        import anthropic  # already loaded by warm_up; cheap here
        import httpx2  # the SDK's HTTP client: a cut stream surfaces as its TransportError

        try:
            yield
        except anthropic.APIStatusError as exc:
            body = exc.body if exc.body is not None else exc.message
            status, headers = exc.status_code, exc.response.headers
            error = from_status(
                self._label, self.model_id, status, body, headers,
                exception=type(exc).__name__, key=self._key,
            )  # fmt: skip
            raise after_start(error, assembler.started) from exc
        except (anthropic.APIError, httpx2.TransportError) as exc:  # no answer, or a bad one
            body = getattr(exc, "body", None) or str(exc)
            error = from_status(
                self._label, self.model_id, None, body, exception=type(exc).__name__,
                key=self._key,
            )  # fmt: skip
            raise after_start(error, assembler.started) from exc

    async def _events(
        self, client: AsyncAnthropic, request: ModelRequest, assembler: ResponseAssembler
    ) -> AsyncIterator[StreamEvent]:
        from anthropic import AsyncStream
        from anthropic.types import Message as SentMessage

        body = anthropic_body(self.model_id, request, self.info, self._history)
        # The platform clients move the model into the URL and add the API version to the body:
        # they take it as an object (a first-party request goes out as the bytes made here).
        sent: dict[str, Any] = (
            {"body": json.loads(body)} if self._provider.api in PLATFORMS else {"content": body}
        )
        # The events as the SDK decodes them from the stream, left as JSON objects, as the
        # OpenAI adapters read theirs: the SDK's models of them cost each round trip, and the
        # first one built them (~7 ms of a session's first prompt).
        stream = await client.post(
            "/v1/messages",
            cast_to=SentMessage,
            **sent,
            options={"headers": JSON_HEADERS},
            stream=True,
            stream_cls=AsyncStream[object],
        )
        tool_ids: dict[Any, str] = {}  # content block index -> tool call id
        usage = Usage()
        stop: str | None = None
        async with stream:
            async for raw in stream:
                event = json_object(raw)
                kind = event.get("type")
                if kind == "message_start":
                    usage = _usage(json_object(json_object(event.get("message")).get("usage")))
                elif kind == "content_block_start":
                    block = json_object(event.get("content_block"))
                    if block.get("type") == "tool_use":
                        call_id = tool_ids[event.get("index")] = str(block["id"])
                        yield assembler.tool_began(call_id, str(block.get("name", "")))
                elif kind == "content_block_delta":
                    delta = json_object(event.get("delta"))
                    step = delta.get("type")
                    if step == "text_delta":
                        yield assembler.text(str(delta.get("text", "")))
                    elif step == "thinking_delta":
                        yield assembler.thinking(str(delta.get("thinking", "")))
                    elif step == "signature_delta":
                        assembler.thinking_signature(str(delta.get("signature", "")))
                    elif step == "input_json_delta":
                        call_id = tool_ids[event.get("index")]
                        yield assembler.tool_arguments(call_id, str(delta.get("partial_json", "")))
                elif kind == "message_delta":
                    reason = json_object(event.get("delta")).get("stop_reason")
                    stop = reason if isinstance(reason, str) else None
                    output = json_object(event.get("usage")).get("output_tokens")
                    usage = replace(usage, output_tokens=_count(output))
                elif kind == "message_stop":
                    await read_to_end(stream)  # its connection is then kept for the next
                    yield assembler.complete(STOP.get(stop, "end_turn"), usage)
                    return
        raise StreamInterrupted("Anthropic's stream ended before the message was complete")


def _usage(fields: dict[str, Any]) -> Usage:
    """The input side of a message's usage, as ``message_start`` gives it."""
    return Usage(
        input_tokens=_count(fields.get("input_tokens")),
        cache_read_tokens=_count(fields.get("cache_read_input_tokens")),
        cache_write_tokens=_count(fields.get("cache_creation_input_tokens")),
    )


def _count(value: Any) -> int:
    """A token count (absent or null: 0)."""
    return value if isinstance(value, int) else 0


def to_anthropic_params(model_id: str, request: ModelRequest, info: ModelInfo) -> dict[str, Any]:
    """The Messages API request for ``request``: pure, so it is tested without the network.
    The adapter sends the same request, its messages encoded once each (``anthropic_body``)."""
    messages = to_anthropic_messages(visible(request.messages, info.images))
    return {**_head(model_id, request, info), "messages": _noted(messages, request.note)}


def anthropic_body(
    model_id: str, request: ModelRequest, info: ModelInfo, history: EncodedHistory[Sent]
) -> bytes:
    """``to_anthropic_params``, streamed, as the JSON bytes sent: only new messages are encoded,
    and the last one again, for its cache breakpoint."""
    head = {**_head(model_id, request, info), "stream": True}
    encoded = history.fragments(request.messages)
    kept = [n for n, (role, _) in enumerate(encoded) if role is not None]
    roles = [encoded[n][0] for n in kept]
    if not kept or any(a == b for a, b in itertools.pairwise(roles)):
        return dumps({**head, "messages": to_anthropic_params(model_id, request, info)["messages"]})
    last = kept[-1]
    newest = to_anthropic_messages((seen_by(request.messages[last], info.images),))
    fragments = [fragment for _, fragment in encoded[:last]]
    return with_array(head, "messages", [*fragments, *map(dumps, _noted(newest, request.note))])


def _noted(messages: list[dict[str, Any]], note: str | None) -> list[dict[str, Any]]:
    """``messages`` with the request's note after the last one's cache breakpoint."""
    if note is None:
        return messages
    block = {"type": "text", "text": note}
    if messages and messages[-1]["role"] == "user":
        last = messages[-1]
        return [*messages[:-1], {**last, "content": [*last["content"], block]}]
    return [*messages, {"role": "user", "content": [block]}]


def _head(model_id: str, request: ModelRequest, info: ModelInfo) -> dict[str, Any]:
    """Everything of the request but its messages."""
    params: dict[str, Any] = {
        "model": model_id,
        "max_tokens": min(request.max_tokens, info.max_output_tokens),
        "system": [{"type": "text", "text": request.system, "cache_control": CACHE}],
    }
    if request.tools:
        tools = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in request.tools
        ]
        tools[-1]["cache_control"] = CACHE
        params["tools"] = tools
        if request.tool_choice == "none":
            params["tool_choice"] = {"type": "none"}
    if request.reasoning_effort in THINKING_BUDGET:
        budget = THINKING_BUDGET[request.reasoning_effort]
        params["thinking"] = {"type": "enabled", "budget_tokens": budget}
        params["max_tokens"] = max(params["max_tokens"], budget + 4096)
    return params


def to_anthropic_messages(history: tuple[Message, ...]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for message in history:
        converted = _message(message)
        if converted is None:
            continue
        if messages and messages[-1]["role"] == converted["role"]:
            messages[-1]["content"].extend(converted["content"])
        else:
            messages.append(converted)
    if messages:
        messages[-1]["content"][-1] = {**messages[-1]["content"][-1], "cache_control": CACHE}
    return messages


Sent = tuple[str | None, bytes]  # a message's role (None: it sends nothing) and its JSON


def _encoded(message: Message) -> Sent:
    converted = _message(message)
    return (None, b"") if converted is None else (converted["role"], dumps(converted))


def _message(message: Message) -> dict[str, Any] | None:
    """The Messages API message one history message becomes (None: nothing to send)."""
    role = "assistant" if isinstance(message, AssistantMessage) else "user"
    blocks = [b for part in message.parts if (b := _block(part)) is not None]
    if role == "user":
        blocks.sort(key=lambda b: b["type"] != "tool_result")  # tool results must come first
    return {"role": role, "content": blocks} if blocks else None


def _block(part: Any) -> dict[str, Any] | None:
    match part:
        case TextPart(text=text):
            return {"type": "text", "text": text} if text else None
        case ImagePart(data=data, mime_type=mime):
            return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}
        case ThinkingPart(text=text, signature=signature):
            return (
                {"type": "thinking", "thinking": text, "signature": signature}
                if signature
                else None
            )
        case ToolCallPart(call_id=call_id, name=name, arguments=arguments):
            return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}
        case ToolResultPart(call_id=call_id, content=content, is_error=is_error, images=images):
            blocks: Any = content
            if images:
                text = [{"type": "text", "text": content}] if content else []
                blocks = text + [_block(image) for image in images]
            return {
                "type": "tool_result",
                "tool_use_id": call_id,
                "content": blocks,
                "is_error": is_error,
            }
        case _:
            return None
