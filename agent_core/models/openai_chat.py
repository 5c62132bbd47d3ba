"""Chat Completions adapter (``openai-chat:<model>``) for any compatible server: OpenRouter,
vLLM, Ollama, LM Studio, llama.cpp. Streams text, ``reasoning_content`` / ``reasoning`` deltas
(the fields such servers use for reasoning) and ``tool_calls`` deltas.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from agent_core.errors import StreamInterrupted
from agent_core.files.json_text import json_object
from agent_core.messages import (
    AssistantMessage,
    ImagePart,
    Message,
    TextPart,
    ToolResultPart,
    Usage,
)
from agent_core.models.assembly import ResponseAssembler
from agent_core.models.base import FinishReason, ModelRequest, StreamEvent, seen_by, visible
from agent_core.models.body import EncodedHistory, dumps, items, with_array
from agent_core.models.catalog import CataloguedModel, ModelInfo
from agent_core.models.openai import OpenAIClient
from agent_core.providers import ProviderSettings

FINISH: dict[str | None, FinishReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}


class OpenAIChatModel(CataloguedModel):
    provider = "openai-chat"

    def __init__(self, model_id: str, provider: ProviderSettings, info: ModelInfo) -> None:
        super().__init__(model_id, info)
        self.provider = provider.name or self.provider  # a named provider's name
        label = (
            "the Chat Completions server" if provider.name in ("", "openai-chat") else provider.name
        )
        self._openai = OpenAIClient(provider, label, model_id)
        self._history = EncodedHistory(lambda m: items(_chat_items(seen_by(m, info.images))))

    def warm_up(self) -> None:
        self.learn()
        self._openai.warm_up()

    async def connect_ahead(self) -> None:
        await self._openai.connect_ahead()

    async def check(self) -> None:
        """Look for this model in the server's model list: reachable, key accepted, model known."""
        await self._openai.check(listed=True)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        await self.learned()
        assembler = ResponseAssembler()
        body = chat_body(self.model_id, request, self.info, self._history)
        calls: dict[Any, str] = {}  # tool-call index -> call id
        finish: str | None = None
        usage = Usage()
        async with self._openai.faults(assembler):
            from openai.types.chat import ChatCompletion

            # The chunks as the SDK decodes them from the stream, left as JSON objects: building
            # a model of each was the largest part of a round trip's own time.
            stream = await self._openai.post_stream(
                "/chat/completions", body, ChatCompletion, object
            )
            async with stream:
                async for raw in stream:
                    chunk = json_object(raw)
                    usage = _usage(chunk.get("usage")) or usage
                    choices: list[Any] = chunk.get("choices") or []
                    for choice in map(json_object, choices[:1]):
                        delta = json_object(choice.get("delta"))
                        reasoning = _reasoning(delta)
                        if reasoning:
                            yield assembler.thinking(reasoning)
                        if content := _text(delta.get("content")):
                            yield assembler.text(content)
                        tool_calls: list[Any] = delta.get("tool_calls") or []
                        for call in map(json_object, tool_calls):
                            index = call.get("index")
                            function = json_object(call.get("function"))
                            if index not in calls:
                                call_id = _text(call.get("id")) or f"call_{index}"
                                calls[index] = call_id
                                yield assembler.tool_began(
                                    call_id, _text(function.get("name")) or "unknown"
                                )
                            if arguments := _text(function.get("arguments")):
                                yield assembler.tool_arguments(calls[index], arguments)
                        finish = _text(choice.get("finish_reason")) or finish
        if finish is None:
            raise StreamInterrupted("the Chat Completions stream ended without a finish reason")
        yield assembler.complete(FINISH.get(finish, "end_turn"), usage)


def to_chat_params(model_id: str, request: ModelRequest, info: ModelInfo) -> dict[str, Any]:
    """The Chat Completions request for ``request``: pure, so it is tested without the network.
    The adapter sends the same request, its messages encoded once each (``chat_body``)."""
    messages = to_chat_messages(visible(request.messages, info.images))
    system = {"role": "system", "content": request.system}
    return {**_head(model_id, request, info), "messages": [system, *messages, *_note(request)]}


def chat_body(
    model_id: str, request: ModelRequest, info: ModelInfo, history: EncodedHistory[bytes]
) -> bytes:
    """``to_chat_params``, streamed, as the JSON bytes sent: only new messages are encoded."""
    system = dumps({"role": "system", "content": request.system})
    head = {**_head(model_id, request, info), "stream": True}
    note = [dumps(message) for message in _note(request)]
    return with_array(head, "messages", [system, *history.fragments(request.messages), *note])


def _note(request: ModelRequest) -> list[dict[str, Any]]:
    """The request's note, as the last message (after the cached prefix)."""
    return [] if request.note is None else [{"role": "user", "content": request.note}]


def _head(model_id: str, request: ModelRequest, info: ModelInfo) -> dict[str, Any]:
    """Everything of the request but its messages."""
    params: dict[str, Any] = {
        "model": model_id,
        "max_tokens": min(request.max_tokens, info.max_output_tokens),
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        params["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                },
            }
            for t in request.tools
        ]
        if request.tool_choice == "none":
            params["tool_choice"] = "none"
    if request.reasoning_effort:
        params["reasoning_effort"] = request.reasoning_effort
    return params


def to_chat_messages(history: tuple[Message, ...]) -> list[dict[str, Any]]:
    return [item for message in history for item in _chat_items(message)]


def _chat_items(message: Message) -> list[dict[str, Any]]:
    """The Chat Completions messages one history message becomes."""
    if isinstance(message, AssistantMessage):
        entry: dict[str, Any] = {"role": "assistant", "content": message.text or None}
        if message.tool_calls:
            entry["tool_calls"] = [
                {
                    "id": c.call_id,
                    "type": "function",
                    "function": {
                        "name": c.name,
                        "arguments": json.dumps(c.arguments, sort_keys=True, separators=(",", ":")),
                    },
                }
                for c in message.tool_calls
            ]
        return [entry]
    items: list[dict[str, Any]] = []
    content: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, ToolResultPart):  # tool messages take text; images follow
            items.append({"role": "tool", "tool_call_id": part.call_id, "content": part.content})
            if part.images:
                label = f"The image(s) the {part.call_id} tool call returned:"
                content.append({"type": "text", "text": label})
                content.extend(_image_url(image) for image in part.images)
        elif isinstance(part, TextPart):
            content.append({"type": "text", "text": part.text})
        else:
            content.append(_image_url(part))
    if content:
        plain = all(c["type"] == "text" for c in content)
        text = "\n\n".join(c["text"] for c in content) if plain else None
        items.append({"role": "user", "content": text if plain else content})
    return items


def _image_url(image: ImagePart) -> dict[str, Any]:
    return {
        "type": "image_url",
        "image_url": {"url": f"data:{image.mime_type};base64,{image.data}"},
    }


def _reasoning(delta: dict[str, Any]) -> str | None:
    """``reasoning_content`` (vLLM, DeepSeek) or ``reasoning`` (OpenRouter, Ollama)."""
    return _text(delta.get("reasoning_content")) or _text(delta.get("reasoning"))


def _text(value: Any) -> str | None:
    """``value`` if it is a non-empty string (a chunk's fields may be null or absent)."""
    return value if isinstance(value, str) and value else None


def _usage(value: Any) -> Usage | None:
    usage = json_object(value)
    if not usage:
        return None
    return Usage(
        input_tokens=int(usage.get("prompt_tokens") or 0),
        output_tokens=int(usage.get("completion_tokens") or 0),
    )
