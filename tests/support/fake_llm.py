"""A fake LLM server speaking the providers' real streaming wire formats, for the real SDKs.

``FakeLLM`` listens on 127.0.0.1 (a background ``ThreadingHTTPServer``), answers queued
``Reply``/``Failure`` objects in order to whichever endpoint is asked, and records every request:

- Anthropic Messages: ``POST /v1/messages`` (SDK base URL: ``fake.url``)
- OpenAI Responses: ``POST /v1/responses`` (SDK base URL: ``fake.url + "/v1"``)
- OpenAI Chat Completions: ``POST /v1/chat/completions`` (SDK base URL: ``fake.url + "/v1"``)
- ``GET /v1/models`` (``fake.models``, Anthropic's format when asked with ``anthropic-version``),
  recorded in ``listings``; Vertex's ``…:streamRawPredict`` and Bedrock's
  ``/model/<id>/invoke-with-response-stream`` (AWS event-stream frames) as Anthropic Messages

The ``/v1`` prefix is optional on every path. Streams use chunked transfer encoding on a
keep-alive HTTP/1.1 connection, so a cut stream (``cut_after_events``) is an incomplete body the
client notices, not a clean end of file.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal, cast

from tests.support.pairing import anthropic_problem, chat_problem, responses_problem
from tests.support.wire_extras import bedrock_frame

Stop = Literal["end_turn", "max_tokens", "tool_use", "refusal"]
JSON = dict[str, Any]


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Reasoning:
    """Anthropic thinking, OpenAI reasoning summary, Chat ``reasoning_content`` (or the field
    ``chat_field`` names: OpenRouter and Ollama stream ``reasoning``)."""

    text: str
    chat_field: str = "reasoning_content"


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: JSON
    call_id: str | None = None  # generated (toolu_… / call_…) when None


@dataclass(frozen=True)
class Reply:
    """One streamed model response. ``stop=None`` means tool_use if any ToolCall, else end_turn.

    ``hold_open`` pauses before the closing events (Anthropic ``message_delta``, Responses
    ``response.completed``, Chat's ``finish_reason`` chunk): the content is out but the stream
    has not finished, so a client can cancel mid-stream. A client hang-up ends the pause.
    """

    items: tuple[Text | Reasoning | ToolCall, ...]
    stop: Stop | None = None
    chunk_chars: int = 8
    chunk_delay: float = 0.0
    usage: tuple[int, int] = (100, 20)
    cut_after_events: int | None = None
    hold_open: float = 0.0


@dataclass(frozen=True)
class Failure:
    """An HTTP error in the provider's error body shape instead of a stream."""

    status: int
    retry_after: float | None = None
    message: str = "fake failure"
    code: str | None = None  # the body's error type (Anthropic) or code and type (OpenAI)


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]  # lower-cased names
    body: JSON
    started_at: float  # time.monotonic()
    finished_at: float | None = None
    status: int = 0
    client_closed: bool = False  # the client hung up before the stream ended


MODELS = {  # a model of each provider API, as the tests name them to Heron
    "anthropic": "anthropic:claude-sonnet-4-5",
    "openai": "openai:gpt-5",
    "openai-chat": "openai-chat:qwen3-coder",
}
Event = tuple[str, str | None, str]  # (type for events_sent, SSE ``event:`` name, data)
Format = Literal["anthropic", "responses", "chat"]
ROUTES: dict[str, Format] = {
    "/messages": "anthropic",
    "/responses": "responses",
    "/chat/completions": "chat",
}
PAIRING_RULES: dict[Format, Callable[[JSON], str | None]] = {
    "anthropic": anthropic_problem,
    "responses": responses_problem,
    "chat": chat_problem,
}
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


def _id(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:24]


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), max(size, 1))]


def _stop(reply: Reply) -> Stop:
    if reply.stop is not None:
        return reply.stop
    return "tool_use" if any(isinstance(i, ToolCall) for i in reply.items) else "end_turn"


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))  # compact, like the real APIs


def _named(payload: JSON) -> Event:
    return (payload["type"], payload["type"], _json(payload))


def _anthropic(reply: Reply, body: JSON) -> tuple[list[Event], int]:
    stop, (tokens_in, tokens_out) = _stop(reply), reply.usage
    message: JSON = {
        "id": _id("msg_"),
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
        text = _json(item.arguments) if isinstance(item, ToolCall) else item.text
        pieces = _pieces(text, reply.chunk_chars)
        if isinstance(item, Text):
            block: JSON = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in pieces]
        elif isinstance(item, Reasoning):
            block = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": p} for p in pieces]
            deltas.append({"type": "signature_delta", "signature": "EqQBfake" + uuid.uuid4().hex})
        else:
            block = {"type": "tool_use", "id": item.call_id or _id("toolu_"), "name": item.name}
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
    stop, (tokens_in, tokens_out) = _stop(reply), reply.usage
    out: list[JSON] = []

    def emit(kind: str, **fields: Any) -> None:
        out.append({"type": kind, **fields})

    response: JSON = {
        "id": _id("resp_"),
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
    added: JSON = {"id": _id("rs_"), "type": "reasoning", "summary": []}
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
    added: JSON = {"id": _id("msg_"), "type": "message", "status": "in_progress", "content": []}
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
    call_id = item.call_id or _id("call_")
    added: JSON = {"id": _id("fc_"), "type": "function_call", "status": "in_progress"}
    added.update(arguments="", call_id=call_id, name=item.name)
    emit("response.output_item.added", output_index=index, item=added)
    at: JSON = {"item_id": added["id"], "output_index": index}
    arguments = _json(item.arguments)
    for piece in _pieces(arguments, size):
        emit("response.function_call_arguments.delta", delta=piece, **at)
    emit("response.function_call_arguments.done", arguments=arguments, **at)
    return {**added, "status": status, "arguments": arguments}


def _chat(reply: Reply, body: JSON) -> tuple[list[Event], int]:
    finish = {"end_turn": "stop", "max_tokens": "length", "tool_use": "tool_calls"}
    finish["refusal"] = "content_filter"
    options: JSON = body.get("stream_options") or {}
    include_usage = options.get("include_usage") is True
    head: JSON = {"id": _id("chatcmpl-"), "object": "chat.completion.chunk"}
    head.update(created=int(time.time()), model=body.get("model", "fake"))
    head.update(system_fingerprint="fp_fake", **({"usage": None} if include_usage else {}))

    def chunk(delta: JSON, finish_reason: str | None = None) -> JSON:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        return {**head, "choices": [choice]}

    out = [chunk({"role": "assistant", "content": "", "refusal": None})]
    tool_index = 0
    for item in reply.items:
        if isinstance(item, ToolCall):
            call_id = item.call_id or _id("call_")
            function = {"name": item.name, "arguments": ""}
            call = {"index": tool_index, "id": call_id, "type": "function", "function": function}
            out.append(chunk({"tool_calls": [call]}))
            for piece in _pieces(_json(item.arguments), reply.chunk_chars):
                call = {"index": tool_index, "function": {"arguments": piece}}
                out.append(chunk({"tool_calls": [call]}))
            tool_index += 1
        else:
            key = "content" if isinstance(item, Text) else item.chat_field
            out += (chunk({key: p}) for p in _pieces(item.text, reply.chunk_chars))
    tail = [chunk({}, finish[_stop(reply)])]
    if include_usage:
        tokens_in, tokens_out = reply.usage
        usage = {"prompt_tokens": tokens_in, "completion_tokens": tokens_out}
        usage.update(total_tokens=tokens_in + tokens_out)
        tail.append({**head, "choices": [], "usage": usage})
    events: list[Event] = [("chat.completion.chunk", None, _json(c)) for c in out + tail]
    return [*events, ("[DONE]", None, "[DONE]")], len(tail) + 1


BUILDERS = {"anthropic": _anthropic, "responses": _responses, "chat": _chat}


def _error_body(fmt: Format, status: int, message: str, code: str | None = None) -> JSON:
    if fmt == "anthropic":
        kind = code or ANTHROPIC_ERRORS.get(status, "api_error")
        error = {"type": kind, "message": message}
        return {"type": "error", "error": error, "request_id": _id("req_")}
    kind, known = OPENAI_ERRORS.get(status, ("server_error", None))
    kind, known = (code, code) if code else (kind, known)
    return {"error": {"message": message, "type": kind, "param": None, "code": known}}


def _model_entry(fmt: Format, model_id: str) -> JSON:
    if fmt == "anthropic":
        created = "2025-09-29T00:00:00Z"
        return {"type": "model", "id": model_id, "display_name": model_id, "created_at": created}
    return {"id": model_id, "object": "model", "created": 1759104000, "owned_by": "fake"}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as httpx expects
    disable_nagle_algorithm = True  # small SSE writes go out at once: a zero-latency model

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the test output stays quiet

    def do_POST(self) -> None:
        cast("_Server", self.server).fake.handle(self)

    def do_GET(self) -> None:
        cast("_Server", self.server).fake.handle_get(self)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeLLM


class FakeLLM:
    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.events_sent: list[tuple[float, str]] = []
        self.url = ""
        # GET /v1/models (and /v1/models/<id>): the list as the APIs name the models, how long
        # it takes, and the requests for it (apart from ``requests``: model requests only).
        self.models: tuple[str, ...] = tuple(spec.partition(":")[2] for spec in MODELS.values())
        self.models_delay, self.listings = 0.0, list[RecordedRequest]()
        self._queue: list[Reply | Failure] = []
        self._routes: list[tuple[str, list[Reply | Failure]]] = []  # (marker, its replies)
        self._changed = threading.Condition()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self.accepted_keys: set[str] | None = None  # None: any key; else others answer 401

    def __enter__(self) -> FakeLLM:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.01,), name="fake-llm", daemon=True
        )
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        if self._server is not None and self._thread is not None:
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=5)

    def environment(self, model: str) -> dict[str, str]:
        """The variables that point every provider of Heron at this server, with ``model``."""
        return {
            "HERON_MODEL": model,
            "ANTHROPIC_API_KEY": "test-key",
            "ANTHROPIC_BASE_URL": self.url,
            "OPENAI_API_KEY": "test-key",
            "OPENAI_BASE_URL": f"{self.url}/v1",
        }

    def enqueue(self, *replies: Reply | Failure) -> None:
        with self._changed:
            self._queue.extend(replies)

    def enqueue_for(self, marker: str, *replies: Reply | Failure) -> None:
        """Replies for the requests whose conversation opens with a user message containing
        ``marker`` (a subagent's task), in order, ahead of the common queue: concurrent
        conversations each get their own."""
        with self._changed:
            self._routes.append((marker, list(replies)))

    def _next_answer(self, body: JSON) -> Reply | Failure | None:
        messages = body.get("messages") or body.get("input") or []
        listed = messages if isinstance(messages, list) else [messages]  # input may be text
        opening = next((m for m in listed if isinstance(m, dict) and m.get("role") == "user"), {})
        text = json.dumps(opening)
        with self._changed:
            for marker, replies in self._routes:
                if replies and marker in text:
                    return replies.pop(0)
            return self._queue.pop(0) if self._queue else None

    def wait_for_requests(self, n: int, timeout: float = 10) -> None:
        with self._changed:
            if not self._changed.wait_for(lambda: len(self.requests) >= n, timeout):
                seen = [r.path for r in self.requests]
                raise TimeoutError(f"FakeLLM: wanted {n} requests in {timeout}s, got {seen}")

    def finished(self, record: RecordedRequest, timeout: float = 10) -> float:
        """When the server finished answering ``record``: its thread records that just after the
        last byte, so a client that has read everything may still be a moment ahead of it."""
        with self._changed:
            if not self._changed.wait_for(lambda: record.finished_at is not None, timeout):
                raise TimeoutError(f"FakeLLM: {record.path} not finished in {timeout}s")
        assert record.finished_at is not None
        return record.finished_at

    def handle(self, h: _Handler) -> None:
        """Answer one request (on a server thread): the next queued reply, or an error."""
        arrived = (
            time.monotonic()
        )  # the server's own time starts here: reading the body is its work
        raw = h.rfile.read(int(h.headers.get("Content-Length") or 0))
        try:
            parsed: Any = json.loads(raw or b"{}")
        except ValueError:
            parsed = None
        fallback = {"_raw": raw.decode(errors="replace")}
        body = cast(JSON, parsed) if isinstance(parsed, dict) else fallback
        path = h.path.split("?", 1)[0]
        headers = {k.lower(): v for k, v in h.headers.items()}
        record = RecordedRequest(path, headers, body, arrived)
        with self._changed:
            self.requests.append(record)
            number = len(self.requests)
            self._changed.notify_all()
        fmt = ROUTES.get(path.removeprefix("/v1"))
        bedrock = path.startswith("/model/") and path.endswith("/invoke-with-response-stream")
        if path.endswith(":streamRawPredict") or bedrock:  # Vertex AI, Bedrock: model in the URL
            fmt = "anthropic"
            body = {"model": path.split("/")[-1 if not bedrock else -2].split(":")[0], **body}
            if bedrock:
                body["stream"] = True  # Bedrock's streaming is in the URL, not the body
        try:
            if fmt is None:
                self._error(h, record, "responses", Failure(404, None, f"no endpoint POST {path}"))
            elif not self._key_accepted(headers):
                rejected = Failure(401, None, "invalid x-api-key")
                self._error(h, record, fmt, rejected, scripted=True)
            elif body.get("stream") is not True:
                msg = f'POST {path} needs "stream": true in the body'
                self._error(h, record, fmt, Failure(400, None, msg))
            elif problem := PAIRING_RULES[fmt](body):  # what the real provider rejects
                self._error(h, record, fmt, Failure(400, None, problem))
            else:
                answer = self._next_answer(body)
                if answer is None:
                    msg = f"no reply enqueued for request #{number} POST {path}"
                    msg += f" (model {body.get('model')!r})"
                    self._error(h, record, fmt, Failure(500, None, msg))
                elif isinstance(answer, Failure):
                    self._error(h, record, fmt, answer, scripted=True)
                else:
                    self._stream(h, record, answer, *BUILDERS[fmt](answer, body), bedrock)
        except (BrokenPipeError, ConnectionResetError):
            record.client_closed = True
            h.close_connection = True
        finally:
            with self._changed:
                record.finished_at = time.monotonic()
                self._changed.notify_all()

    def handle_get(self, h: _Handler) -> None:
        """The models endpoint: the list, or one model (404 when it is not in ``models``)."""
        path = h.path.split("?", 1)[0].removeprefix("/v1")
        headers = {k.lower(): v for k, v in h.headers.items()}
        record = RecordedRequest(path, headers, {}, time.monotonic())
        with self._changed:
            self.listings.append(record)
            self._changed.notify_all()
        time.sleep(self.models_delay)
        fmt: Format = "anthropic" if "anthropic-version" in headers else "responses"
        wanted = path.removeprefix("/models").strip("/")
        if not self._key_accepted(headers):
            self._error(h, record, fmt, Failure(401, None, "invalid x-api-key"), scripted=True)
        elif not path.startswith("/models"):
            self._error(h, record, fmt, Failure(404, None, f"no endpoint GET {path}"))
        elif wanted and wanted not in self.models:
            missing = Failure(404, None, f"model: {wanted}", "not_found_error")
            if fmt != "anthropic":
                missing = Failure(404, None, f"The model `{wanted}` does not exist")
            self._error(h, record, fmt, missing, scripted=True)
        else:
            entries = [_model_entry(fmt, m) for m in self.models]
            answer: JSON = {"object": "list", "data": entries}
            if fmt == "anthropic":
                answer = {"data": entries, "has_more": False, "first_id": None, "last_id": None}
            data = _json(_model_entry(fmt, wanted) if wanted else answer).encode()
            self._head(h, record, 200, {"Content-Type": "application/json"} | {
                "Content-Length": str(len(data))
            })  # fmt: skip
            h.wfile.write(data)
        with self._changed:
            record.finished_at = time.monotonic()
            self._changed.notify_all()

    def _key_accepted(self, headers: dict[str, str]) -> bool:
        if self.accepted_keys is None:
            return True
        key = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
        return key in self.accepted_keys

    def _error(
        self,
        h: _Handler,
        record: RecordedRequest,
        fmt: Format,
        fail: Failure,
        scripted: bool = False,
    ) -> None:
        message = fail.message if scripted else f"FakeLLM: {fail.message}"
        data = _json(_error_body(fmt, fail.status, message, fail.code)).encode()
        headers = {"Content-Type": "application/json", "Content-Length": str(len(data))}
        if fail.retry_after is not None:
            headers["Retry-After"] = f"{fail.retry_after:g}"
        if not scripted:  # a test bug, not a provider hiccup: tell the SDK not to retry
            headers["x-should-retry"] = "false"
        self._head(h, record, fail.status, headers)
        h.wfile.write(data)

    def _head(
        self, h: _Handler, record: RecordedRequest, status: int, headers: dict[str, str]
    ) -> None:
        record.status = status
        h.send_response(status)
        headers.update({"request-id": _id("req_"), "x-request-id": _id("req_")})
        for name, value in headers.items():
            h.send_header(name, value)
        h.end_headers()

    def _stream(
        self, h: _Handler, record: RecordedRequest, reply: Reply, events: list[Event], tail: int,
        bedrock: bool = False,  # AWS event-stream frames of ``chunk``s, as Bedrock sends them
    ) -> None:  # fmt: skip
        sse = {"Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache"}
        if bedrock:
            sse = {"Content-Type": "application/vnd.amazon.eventstream"}
        self._head(h, record, 200, {**sse, "Transfer-Encoding": "chunked"})
        cut = reply.cut_after_events
        for n, (label, name, data) in enumerate(events):
            if n == cut:
                break
            pause = reply.hold_open if n == len(events) - tail else 0.0
            if not self._pause(h, pause or (reply.chunk_delay if n else 0.0)):
                record.client_closed = not self._stopping.is_set()
                h.close_connection = True
                return
            frame = ((f"event: {name}\n" if name else "") + f"data: {data}\n\n").encode()
            frame = bedrock_frame(data.encode()) if bedrock else frame
            h.wfile.write(b"%x\r\n%s\r\n" % (len(frame), frame))  # one HTTP chunk per event
            self.events_sent.append((time.monotonic(), label))
        if cut is None:
            h.wfile.write(b"0\r\n\r\n")
        else:  # no final chunk: httpx sees an incomplete body, as when a proxy drops the stream
            h.connection.shutdown(socket.SHUT_RDWR)
            h.close_connection = True

    def _pause(self, h: _Handler, seconds: float) -> bool:
        """Sleep ``seconds``; False as soon as the client hangs up or the server stops."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if self._stopping.is_set():
                return False
            readable, _, _ = select.select([h.connection], [], [], min(left, 0.02))
            if readable:  # end of file, or a pipelined request that must wait its turn
                if h.connection.recv(1, socket.MSG_PEEK) == b"":
                    return False
                time.sleep(min(left, 0.02))
        return True
