"""OpenAI Responses API adapter (``openai:<model>``), streaming text, reasoning summaries and
function calls; and the client plumbing the Chat Completions adapter shares.

The SDK is imported on first use, or by ``warm_up`` in a worker thread once a session exists.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio

from agent_core.errors import ModelError, StreamInterrupted
from agent_core.files.json_text import json_object
from agent_core.messages import (
    AssistantMessage,
    ImagePart,
    Message,
    TextPart,
    ToolResultPart,
    Usage,
)
from agent_core.models import tls
from agent_core.models.assembly import ResponseAssembler
from agent_core.models.base import FinishReason, ModelRequest, StreamEvent, seen_by, visible
from agent_core.models.body import JSON_HEADERS, EncodedHistory, items, with_array
from agent_core.models.catalog import CataloguedModel, ModelInfo
from agent_core.models.clients import connect_ahead, shared
from agent_core.models.faults import after_start, from_status
from agent_core.models.streams import read_to_end
from agent_core.providers import ProviderSettings

if TYPE_CHECKING:
    from openai import AsyncOpenAI

TEXT_DELTAS = ("response.output_text.delta", "response.refusal.delta")


class OpenAIClient:
    """An ``AsyncOpenAI`` built on first use, and the mapping of its errors to the core's."""

    def __init__(self, provider: ProviderSettings, label: str, model_id: str) -> None:
        self._provider = provider
        self._label = label
        self._model_id = model_id
        self._client: AsyncOpenAI | None = None
        # Where the key comes from, named in the fix a rejected key is told with.
        self.key_variable = provider.key_variable or "OPENAI_API_KEY"

    def warm_up(self) -> None:
        if self._client is None:
            import openai

            # Local OpenAI-compatible servers (Ollama, vLLM, llama.cpp) need no key.
            provider = self._provider
            key = provider.api_key or ("not-needed" if provider.base_url else None)
            self._client = shared(
                "openai",
                provider,
                lambda: openai.AsyncOpenAI(
                    api_key=key,
                    base_url=provider.base_url,
                    max_retries=0,
                    default_headers=dict(provider.headers) or None,
                    http_client=openai.DefaultAsyncHttpxClient(verify=tls.context()),
                ),
            )

    async def connect_ahead(self) -> None:
        """The connection the next request will use, opened now (once ``warm_up`` built the
        client; nothing before)."""
        await connect_ahead(self._client)

    async def client(self) -> AsyncOpenAI:
        if self._client is None:
            await anyio.to_thread.run_sync(self.warm_up)
        assert self._client is not None
        return self._client

    async def post_stream(self, path: str, body: bytes, cast_to: Any, events: Any) -> Any:
        """A streamed request whose body is made already (``models/body.py``): the SDK sends
        it and yields its events, parsed as ``events`` (``object``: as decoded JSON)."""
        from openai import AsyncStream

        client = await self.client()
        return await client.post(
            path,
            cast_to=cast_to,
            content=body,
            options={"headers": JSON_HEADERS},
            stream=True,
            stream_cls=AsyncStream[events],
        )

    @asynccontextmanager
    async def faults(self, assembler: ResponseAssembler) -> AsyncGenerator[None, None]:
        """The SDK's errors as the core's. Entered before anything touches the SDK: it has the
        client built first, which imports the SDK in a worker thread, not on the event loop."""
        await self.client()
        import openai

        try:
            yield
        except openai.APIStatusError as exc:
            body = exc.body if exc.body is not None else exc.message
            error = from_status(
                self._label, self._model_id, exc.status_code, body, exc.response.headers,
                exception=type(exc).__name__, key=self.key_variable,
            )  # fmt: skip
            raise after_start(error, assembler.started) from exc
        except openai.APIError as exc:  # no answer (connection, timeout), or a bad one
            error = self.failed(getattr(exc, "body", None) or str(exc), type(exc).__name__)
            raise after_start(error, assembler.started) from exc

    async def check(self, *, listed: bool) -> None:
        """This model from the models endpoint (``listed``: looked for in the list, which every
        OpenAI-compatible server has), raising the ``ModelError`` a request would."""
        async with self.faults(ResponseAssembler()):
            client = await self.client()
            if not listed:
                await client.models.retrieve(self._model_id)
            elif self._model_id not in [model.id async for model in client.models.list()]:
                raise from_status(
                    self._label, self._model_id, 404, "not in the server's model list"
                )

    def failed(self, body: object, exception: str = "") -> ModelError:
        """The core error for a failure without an HTTP error status (an error event)."""
        return from_status(
            self._label, self._model_id, None, body, exception=exception, key=self.key_variable
        )


class OpenAIResponsesModel(CataloguedModel):
    provider = "openai"

    def __init__(self, model_id: str, provider: ProviderSettings, info: ModelInfo) -> None:
        super().__init__(model_id, info)
        self.provider = provider.name or self.provider  # a named provider's name
        self._openai = OpenAIClient(provider, _label(provider.name), model_id)
        self._history = EncodedHistory(lambda m: items(_input_items(seen_by(m, info.images))))

    def warm_up(self) -> None:
        self.learn()
        self._openai.warm_up()

    async def connect_ahead(self) -> None:
        await self._openai.connect_ahead()

    async def check(self) -> None:
        """Ask the models endpoint for this model: reachable, key accepted, model known."""
        await self._openai.check(listed=False)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        await self.learned()
        assembler = ResponseAssembler()
        body = responses_body(self.model_id, request, self.info, self._history)
        async with self._openai.faults(assembler):
            from openai.types.responses import Response

            # The events as the SDK decodes them from the stream, left as JSON objects: three of
            # them echo the whole request's instructions and tools, and building models of those
            # was a third of the time of a round trip.
            stream = await self._openai.post_stream("/responses", body, Response, object)
            calls: dict[str, str] = {}  # item id -> call id
            async with stream:
                async for raw in stream:
                    event = json_object(raw)
                    kind, item = event.get("type"), json_object(event.get("item"))
                    if kind in TEXT_DELTAS:
                        yield assembler.text(str(event.get("delta", "")))
                    elif kind == "response.reasoning_summary_text.delta":
                        yield assembler.thinking(str(event.get("delta", "")))
                    elif (
                        kind == "response.output_item.added" and item.get("type") == "function_call"
                    ):
                        call_id = str(item["call_id"])
                        calls[str(item.get("id") or call_id)] = call_id
                        yield assembler.tool_began(call_id, str(item.get("name", "")))
                    elif kind == "response.function_call_arguments.delta":
                        call_id = calls[str(event["item_id"])]
                        yield assembler.tool_arguments(call_id, str(event.get("delta", "")))
                    elif (
                        kind == "response.output_item.done" and item.get("type") == "function_call"
                    ):
                        arguments = str(item.get("arguments", ""))
                        assembler.set_tool_arguments(str(item["call_id"]), arguments)
                    elif kind in ("response.completed", "response.incomplete"):
                        response = json_object(event.get("response"))
                        await read_to_end(stream)  # its connection is then kept for the next
                        yield assembler.complete(_finish(response), _usage(response.get("usage")))
                        return
                    elif kind == "response.failed":
                        failure = json_object(event.get("response")).get("error")
                        raise after_start(self._openai.failed(failure), assembler.started)
                    elif kind == "error":
                        raise after_start(self._openai.failed(event), assembler.started)
        raise StreamInterrupted("OpenAI's stream ended before the response was complete")


def to_responses_params(model_id: str, request: ModelRequest, info: ModelInfo) -> dict[str, Any]:
    """The Responses API request for ``request``: pure, so it is tested without the network.
    The adapter sends the same request, its input encoded once per message (``responses_body``)."""
    input_items = to_responses_input(visible(request.messages, info.images))
    return {**_head(model_id, request, info), "input": input_items + _note(request)}


def responses_body(
    model_id: str, request: ModelRequest, info: ModelInfo, history: EncodedHistory[bytes]
) -> bytes:
    """``to_responses_params``, streamed, as the JSON bytes sent: only new messages are encoded."""
    head = {**_head(model_id, request, info), "stream": True}
    note = items(_note(request))  # empty without a note: left out of the array
    return with_array(head, "input", [*history.fragments(request.messages), note])


def _note(request: ModelRequest) -> list[dict[str, Any]]:
    """The request's note, as the input's last item (after the cached prefix)."""
    if request.note is None:
        return []
    return [{"role": "user", "content": [{"type": "input_text", "text": request.note}]}]


def _head(model_id: str, request: ModelRequest, info: ModelInfo) -> dict[str, Any]:
    """Everything of the request but its input."""
    params: dict[str, Any] = {
        "model": model_id,
        "instructions": request.system,
        "max_output_tokens": min(request.max_tokens, info.max_output_tokens),
        "store": False,
    }
    if request.tools:
        params["tools"] = [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": t.parameters,
            }
            for t in request.tools
        ]
        if request.tool_choice == "none":
            params["tool_choice"] = "none"
    if request.reasoning_effort:
        params["reasoning"] = {"effort": request.reasoning_effort, "summary": "auto"}
    return params


def to_responses_input(history: tuple[Message, ...]) -> list[dict[str, Any]]:
    return [item for message in history for item in _input_items(message)]


def _input_items(message: Message) -> list[dict[str, Any]]:
    """The Responses API input items one history message becomes."""
    items: list[dict[str, Any]] = []
    if isinstance(message, AssistantMessage):
        if text := message.text:
            content = [{"type": "output_text", "text": text}]
            items.append({"type": "message", "role": "assistant", "content": content})
        for call in message.tool_calls:
            arguments = json.dumps(call.arguments, sort_keys=True, separators=(",", ":"))
            items.append(
                {
                    "type": "function_call",
                    "call_id": call.call_id,
                    "name": call.name,
                    "arguments": arguments,
                }
            )
        return items
    content: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, ToolResultPart):
            output: Any = part.content
            if part.images:
                output = [{"type": "input_text", "text": part.content}] + [
                    _input_image(image) for image in part.images
                ]
            items.append(
                {"type": "function_call_output", "call_id": part.call_id, "output": output}
            )
        elif isinstance(part, TextPart):
            content.append({"type": "input_text", "text": part.text})
        else:
            content.append(_input_image(part))
    if content:
        items.append({"role": "user", "content": content})
    return items


def _input_image(image: ImagePart) -> dict[str, Any]:
    return {"type": "input_image", "image_url": f"data:{image.mime_type};base64,{image.data}"}


def _finish(response: dict[str, Any]) -> FinishReason:
    if response.get("status") == "incomplete":
        reason = json_object(response.get("incomplete_details")).get("reason")
        return "refusal" if reason == "content_filter" else "max_tokens"
    for item in map(json_object, response.get("output") or []):
        contents = (
            map(json_object, item.get("content") or []) if item.get("type") == "message" else ()
        )
        if any(c.get("type") == "refusal" for c in contents):
            return "refusal"
    return "end_turn"


def _usage(usage: Any) -> Usage:
    fields = json_object(usage)
    cached = json_object(fields.get("input_tokens_details")).get("cached_tokens") or 0
    return Usage(
        input_tokens=int(fields.get("input_tokens") or 0),
        output_tokens=int(fields.get("output_tokens") or 0),
        cache_read_tokens=int(cached),
    )


def _label(name: str) -> str:
    """How errors name the provider: OpenAI, or a named provider by its name."""
    return "OpenAI" if name in ("", "openai") else name
