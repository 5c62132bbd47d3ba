"""Each provider API's streaming wire format, error body and models-list entry, as the real APIs
send them: a ``Reply`` becomes the events of an Anthropic Messages, OpenAI Responses or Chat
Completions stream (``BUILDERS``), a ``Failure`` the provider's error body (``error_body``).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any, Literal

from tests.support.llm_replies import JSON, Reasoning, Reply, Stop, Text, ToolCall, stop_of

Event = tuple[str, str | None, str]  # (type for events_sent, SSE ``event:`` name, data)
Format = Literal["anthropic", "responses", "chat"]

ANTHROPIC_ERRORS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}
OPENAI_ERRORS = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("permission_denied", None),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


def fresh_id(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:24]


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), max(size, 1))]


def compact_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))  # compact, like the real APIs


def _named(payload: JSON) -> Event:
    return (payload["type"], payload["type"], compact_json(payload))


def _anthropic(reply: Reply, body: JSON) -> tuple[list[Event], int]:
    stop, (tokens_in, tokens_out) = stop_of(reply), reply.usage
    message: JSON = {
        "id": fresh_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "fake"),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {
            "input_tokens": tokens_in,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 1,
        },
    }
    out: list[JSON] = [{"type": "message_start", "message": message}]
    for index, item in enumerate(reply.items):
        text = compact_json(item.arguments) if isinstance(item, ToolCall) else item.text
        pieces = _pieces(text, reply.chunk_chars)
        if isinstance(item, Text):
            block: JSON = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in pieces]
        elif isinstance(item, Reasoning):
            block = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": p} for p in pieces]
            deltas.append({"type": "signature_delta", "signature": "EqQBfake" + uuid.uuid4().hex})
        else:
            block = {
                "type": "tool_use",
                "id": item.call_id or fresh_id("toolu_"),
                "name": item.name,
            }
            block["input"] = {}
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in pieces]
        out.append({"type": "content_block_start", "index": index, "content_block": block})
        out += ({"type": "content_block_delta", "index": index, "delta": d} for d in deltas)
        out.append({"type": "content_block_stop", "index": index})
    out.insert(min(2, len(out)), {"type": "ping"})  # the real API pings after the first block start
    details = {"type": "refusal", "category": None, "explanation": None}
    delta: JSON = {"stop_reason": stop, "stop_sequence": None}
    delta["stop_details"] = details if stop == "refusal" else None
    usage = {"input_tokens": tokens_in, "output_tokens": tokens_out}
    out.append({"type": "message_delta", "delta": delta, "usage": usage})
    out.append({"type": "message_stop"})
    return [_named(e) for e in out], 2


Emit = Callable[..., None]


def _responses(reply: Reply, body: JSON) -> tuple[list[Event], int]:
    stop, (tokens_in, tokens_out) = stop_of(reply), reply.usage
    out: list[JSON] = []

    def emit(kind: str, **fields: Any) -> None:
        out.append({"type": kind, **fields})

    response: JSON = {
        "id": fresh_id("resp_"),
        "object": "response",
        "created_at": int(time.time()),
        "status": "in_progress",
        "background": False,
        "error": None,
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"),
        "model": body.get("model", "fake"),
        "output": [],
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "previous_response_id": body.get("previous_response_id"),
        "reasoning": body.get("reasoning") or {"effort": None, "summary": None},
        "store": body.get("store", True),
        "temperature": body.get("temperature", 1.0),
        "text": body.get("text") or {"format": {"type": "text"}},
        "tool_choice": body.get("tool_choice", "auto"),
        "tools": body.get("tools", []),
        "top_p": body.get("top_p", 1.0),
        "truncation": "disabled",
        "usage": None,
        "metadata": {},
    }
    emit("response.created", response=response)
    emit("response.in_progress", response=response)
    outputs: list[JSON] = []
    for index, item in enumerate(reply.items):
        truncated = stop == "max_tokens" and index == len(reply.items) - 1
        status = "incomplete" if truncated else "completed"
        if isinstance(item, Reasoning):
            encrypted = "reasoning.encrypted_content" in (body.get("include") or [])
            done = _responses_reasoning(emit, index, item, reply.chunk_chars, encrypted)
        elif isinstance(item, Text):
            done = _responses_message(emit, index, item, reply.chunk_chars, stop, status)
        else:
            done = _responses_call(emit, index, item, reply.chunk_chars, status)
        emit("response.output_item.done", output_index=index, item=done)
        outputs.append(done)
    final = {**response, "output": outputs, "status": "completed"}
    final["usage"] = {
        "input_tokens": tokens_in,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": tokens_out,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": tokens_in + tokens_out,
    }
    if stop == "max_tokens":
        final.update(status="incomplete", incomplete_details={"reason": "max_output_tokens"})
        emit("response.incomplete", response=final)
    else:
        emit("response.completed", response={**final, "completed_at": int(time.time())})
    for number, event in enumerate(out):
        event["sequence_number"] = number
    return [_named(e) for e in out], 1


def _responses_reasoning(
    emit: Emit, index: int, item: Reasoning, size: int, encrypted: bool
) -> JSON:
    added: JSON = {"id": fresh_id("rs_"), "type": "reasoning", "summary": []}
    if encrypted:
        added["encrypted_content"] = "gAAAAAfake" + uuid.uuid4().hex
    emit("response.output_item.added", output_index=index, item=added)
    at: JSON = {"item_id": added["id"], "output_index": index, "summary_index": 0}
    part = {"type": "summary_text", "text": ""}
    emit("response.reasoning_summary_part.added", part=part, **at)
    for piece in _pieces(item.text, size):
        emit("response.reasoning_summary_text.delta", delta=piece, **at)
    emit("response.reasoning_summary_text.done", text=item.text, **at)
    part = {**part, "text": item.text}
    emit("response.reasoning_summary_part.done", part=part, **at)
    return {**added, "summary": [part]}


def _responses_message(
    emit: Emit, index: int, item: Text, size: int, stop: Stop, status: str
) -> JSON:
    added: JSON = {
        "id": fresh_id("msg_"),
        "type": "message",
        "status": "in_progress",
        "content": [],
    }
    added["role"] = "assistant"
    emit("response.output_item.added", output_index=index, item=added)
    at: JSON = {"item_id": added["id"], "output_index": index, "content_index": 0}
    if stop == "refusal":
        part: JSON = {"type": "refusal", "refusal": ""}
        emit("response.content_part.added", part=part, **at)
        for piece in _pieces(item.text, size):
            emit("response.refusal.delta", delta=piece, **at)
        emit("response.refusal.done", refusal=item.text, **at)
        part = {**part, "refusal": item.text}
    else:
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        emit("response.content_part.added", part=part, **at)
        for piece in _pieces(item.text, size):
            emit("response.output_text.delta", delta=piece, logprobs=[], **at)
        emit("response.output_text.done", text=item.text, logprobs=[], **at)
        part = {**part, "text": item.text}
    emit("response.content_part.done", part=part, **at)
    return {**added, "status": status, "content": [part]}


def _responses_call(emit: Emit, index: int, item: ToolCall, size: int, status: str) -> JSON:
    call_id = item.call_id or fresh_id("call_")
    added: JSON = {"id": fresh_id("fc_"), "type": "function_call", "status": "in_progress"}
    added.update(arguments="", call_id=call_id, name=item.name)
    emit("response.output_item.added", output_index=index, item=added)
    at: JSON = {"item_id": added["id"], "output_index": index}
    arguments = compact_json(item.arguments)
    for piece in _pieces(arguments, size):
        emit("response.function_call_arguments.delta", delta=piece, **at)
    emit("response.function_call_arguments.done", arguments=arguments, **at)
    return {**added, "status": status, "arguments": arguments}


def _chat(reply: Reply, body: JSON) -> tuple[list[Event], int]:
    finish = {"end_turn": "stop", "max_tokens": "length", "tool_use": "tool_calls"}
    finish["refusal"] = "content_filter"
    options: JSON = body.get("stream_options") or {}
    include_usage = options.get("include_usage") is True
    head: JSON = {"id": fresh_id("chatcmpl-"), "object": "chat.completion.chunk"}
    head.update(created=int(time.time()), model=body.get("model", "fake"))
    head.update(system_fingerprint="fp_fake", **({"usage": None} if include_usage else {}))

    def chunk(delta: JSON, finish_reason: str | None = None) -> JSON:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        return {**head, "choices": [choice]}

    out = [chunk({"role": "assistant", "content": "", "refusal": None})]
    tool_index = 0
    for item in reply.items:
        if isinstance(item, ToolCall):
            call_id = item.call_id or fresh_id("call_")
            function = {"name": item.name, "arguments": ""}
            call = {"index": tool_index, "id": call_id, "type": "function", "function": function}
            out.append(chunk({"tool_calls": [call]}))
            for piece in _pieces(compact_json(item.arguments), reply.chunk_chars):
                call = {"index": tool_index, "function": {"arguments": piece}}
                out.append(chunk({"tool_calls": [call]}))
            tool_index += 1
        else:
            key = "content" if isinstance(item, Text) else item.chat_field
            out += (chunk({key: p}) for p in _pieces(item.text, reply.chunk_chars))
    tail = [chunk({}, finish[stop_of(reply)])]
    if include_usage:
        tokens_in, tokens_out = reply.usage
        usage = {"prompt_tokens": tokens_in, "completion_tokens": tokens_out}
        usage.update(total_tokens=tokens_in + tokens_out)
        tail.append({**head, "choices": [], "usage": usage})
    events: list[Event] = [("chat.completion.chunk", None, compact_json(c)) for c in out + tail]
    return [*events, ("[DONE]", None, "[DONE]")], len(tail) + 1


BUILDERS = {"anthropic": _anthropic, "responses": _responses, "chat": _chat}


def error_body(fmt: Format, status: int, message: str, code: str | None = None) -> JSON:
    if fmt == "anthropic":
        kind = code or ANTHROPIC_ERRORS.get(status, "api_error")
        error = {"type": kind, "message": message}
        return {"type": "error", "error": error, "request_id": fresh_id("req_")}
    kind, known = OPENAI_ERRORS.get(status, ("server_error", None))
    kind, known = (code, code) if code else (kind, known)
    return {"error": {"message": message, "type": kind, "param": None, "code": known}}


def model_entry(fmt: Format, model_id: str) -> JSON:
    if fmt == "anthropic":
        created = "2025-09-29T00:00:00Z"
        return {"type": "model", "id": model_id, "display_name": model_id, "created_at": created}
    return {"id": model_id, "object": "model", "created": 1759104000, "owned_by": "fake"}
