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

from agent_core.config import ProviderSettings
from agent_core.errors import ModelError, ModelUnavailable, StreamInterrupted
from agent_core.messages import (
    AssistantMessage,
    ImagePart,
    Message,
    TextPart,
    ToolResultPart,
    Usage,
)
from agent_core.models.assembly import ResponseAssembler
from agent_core.models.base import FinishReason, ModelRequest, StreamEvent, visible
from agent_core.models.catalog import CataloguedModel, ModelInfo
from agent_core.models.faults import after_start, error_message, from_status

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.responses import Response, ResponseUsage


class OpenAIClient:
    """An ``AsyncOpenAI`` built on first use, and the mapping of its errors to the core's."""

    def __init__(self, provider: ProviderSettings, label: str, model_id: str) -> None:
        self._provider = provider
        self._label = label
        self._model_id = model_id
        self._client: AsyncOpenAI | None = None

    def warm_up(self) -> None:
        if self._client is None:
            import openai

            # Local OpenAI-compatible servers (Ollama, vLLM, llama.cpp) need no key.
            key = self._provider.api_key or ("not-needed" if self._provider.base_url else None)
            self._client = openai.AsyncOpenAI(
                api_key=key, base_url=self._provider.base_url, max_retries=0
            )

    async def client(self) -> AsyncOpenAI:
        if self._client is None:
            await anyio.to_thread.run_sync(self.warm_up)
        assert self._client is not None
        return self._client

    @asynccontextmanager
    async def faults(self, assembler: ResponseAssembler) -> AsyncGenerator[None, None]:
        import openai

        try:
            yield
        except openai.APIStatusError as exc:
            message = error_message(exc.body, exc.message)
            error = from_status(
                self._label, self._model_id, exc.status_code, message, exc.response.headers
            )
            raise after_start(error, assembler.started) from exc
        except openai.APIConnectionError as exc:
            error = ModelUnavailable(f"cannot reach {self._label}: {exc}")
            raise after_start(error, assembler.started) from exc


class OpenAIResponsesModel(CataloguedModel):
    provider = "openai"

    def __init__(self, model_id: str, provider: ProviderSettings, info: ModelInfo) -> None:
        super().__init__(model_id, info)
        self._openai = OpenAIClient(provider, "OpenAI", model_id)

    def warm_up(self) -> None:
        self._openai.warm_up()

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        client = await self._openai.client()
        assembler = ResponseAssembler()
        params = to_responses_params(self.model_id, request, self.info)
        async with self._openai.faults(assembler):
            stream = await client.responses.create(**params, stream=True)
            calls: dict[str, str] = {}  # item id -> call id
            async with stream:
                async for event in stream:
                    if event.type == "response.output_text.delta":
                        yield assembler.text(event.delta)
                    elif event.type == "response.reasoning_summary_text.delta":
                        yield assembler.thinking(event.delta)
                    elif event.type == "response.refusal.delta":
                        yield assembler.text(event.delta)
                    elif (
                        event.type == "response.output_item.added"
                        and event.item.type == "function_call"
                    ):
                        calls[event.item.id or event.item.call_id] = event.item.call_id
                        yield assembler.tool_began(event.item.call_id, event.item.name)
                    elif event.type == "response.function_call_arguments.delta":
                        yield assembler.tool_arguments(calls[event.item_id], event.delta)
                    elif (
                        event.type == "response.output_item.done"
                        and event.item.type == "function_call"
                    ):
                        assembler.set_tool_arguments(event.item.call_id, event.item.arguments)
                    elif event.type == "response.completed" or event.type == "response.incomplete":
                        response = event.response
                        yield assembler.complete(_finish(response), _usage(response.usage))
                        return
                    elif event.type == "response.failed":
                        error = response_error(event.response.error)
                        raise after_start(error, assembler.started)
                    elif event.type == "error":
                        error = ModelError(f"OpenAI stream error: {event.message}")
                        raise after_start(error, assembler.started)
        raise StreamInterrupted("OpenAI's stream ended before the response was complete")


def to_responses_params(model_id: str, request: ModelRequest, info: ModelInfo) -> dict[str, Any]:
    """The Responses API request for ``request``: pure, so it is tested without the network."""
    params: dict[str, Any] = {
        "model": model_id,
        "instructions": request.system,
        "input": to_responses_input(visible(request.messages, info.images)),
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
    if request.reasoning_effort:
        params["reasoning"] = {"effort": request.reasoning_effort, "summary": "auto"}
    return params


def to_responses_input(history: tuple[Message, ...]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for message in history:
        if isinstance(message, AssistantMessage):
            text = message.text
            if text:
                items.append(
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": text}],
                    }
                )
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
            continue
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


def response_error(error: Any) -> ModelError:
    message = getattr(error, "message", None) or "the response failed"
    code = str(getattr(error, "code", "") or "")
    if code in ("rate_limit_exceeded", "server_error"):
        return ModelUnavailable(f"OpenAI: {message}")
    return ModelError(f"OpenAI: {message}")


def _finish(response: Response) -> FinishReason:
    if response.status == "incomplete":
        details = response.incomplete_details
        return "refusal" if details and details.reason == "content_filter" else "max_tokens"
    for item in response.output or []:
        if item.type == "message" and any(c.type == "refusal" for c in item.content):
            return "refusal"
    return "end_turn"


def _usage(usage: ResponseUsage | None) -> Usage:
    if usage is None:
        return Usage()
    details = usage.input_tokens_details
    cached = (details.cached_tokens if details else 0) or 0
    return Usage(
        input_tokens=usage.input_tokens, output_tokens=usage.output_tokens, cache_read_tokens=cached
    )
