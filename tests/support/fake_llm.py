"""A fake LLM server speaking the providers' real streaming wire formats, for the real SDKs.

``FakeLLM`` listens on 127.0.0.1 (a background ``ThreadingHTTPServer``), answers queued
``Reply``/``Failure`` objects in order to whichever endpoint is asked, and records every request:

- Anthropic Messages: ``POST /v1/messages`` (SDK base URL: ``fake.url``)
- OpenAI Responses: ``POST /v1/responses`` (SDK base URL: ``fake.url + "/v1"``)
- OpenAI Chat Completions: ``POST /v1/chat/completions`` (SDK base URL: ``fake.url + "/v1"``)
- ``GET /v1/models`` (``fake.models``, Anthropic's format when asked with ``anthropic-version``),
  recorded in ``listings``; ``HEAD`` of any path (``heads``: a client opening its connection
  ahead), answered 404 with no body; Vertex's ``…:streamRawPredict`` and Bedrock's
  ``/model/<id>/invoke-with-response-stream`` (AWS event-stream frames) as Anthropic Messages

The ``/v1`` prefix is optional on every path. Streams use chunked transfer encoding on a
keep-alive HTTP/1.1 connection, so a cut stream (``cut_after_events``) is an incomplete body the
client notices, not a clean end of file. Given a server context (``FakeLLM(tls=...)``), it
answers over HTTPS, as the real APIs do.
"""

from __future__ import annotations

import json
import select
import socket
import ssl
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

from tests.support.llm_replies import (
    JSON,
    MODELS,
    Failure,
    Reasoning,
    Reply,
    Text,
    ToolCall,
)
from tests.support.llm_streams import (
    BUILDERS,
    Event,
    Format,
    compact_json,
    error_body,
    fresh_id,
    model_entry,
)
from tests.support.pairing import anthropic_problem, chat_problem, responses_problem
from tests.support.wire_extras import bedrock_frame

__all__ = [
    "MODELS",
    "Failure",
    "FakeLLM",
    "Reasoning",
    "RecordedRequest",
    "Reply",
    "Text",
    "ToolCall",
]


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]  # lower-cased names
    body: JSON
    started_at: float  # time.monotonic()
    answered_at: float | None = None  # just before the status line went out
    finished_at: float | None = None
    status: int = 0
    client_closed: bool = False  # the client hung up before the stream ended
    client_port: int = 0  # the client's end of the TCP connection: one connection, one port


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


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as httpx expects
    disable_nagle_algorithm = True  # small SSE writes go out at once: a zero-latency model

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the test output stays quiet

    def do_POST(self) -> None:
        cast("_Server", self.server).fake.handle(self)

    def do_GET(self) -> None:
        cast("_Server", self.server).fake.handle_get(self)

    def do_HEAD(self) -> None:
        cast("_Server", self.server).fake.handle_head(self)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeLLM
    tls: ssl.SSLContext | None = None

    def get_request(self) -> tuple[socket.socket, Any]:
        connection, address = super().get_request()
        if self.tls is not None:
            # The handshake happens on the connection's first read, in the connection's thread.
            wrap = self.tls.wrap_socket
            connection = wrap(connection, server_side=True, do_handshake_on_connect=False)
        return connection, address

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that exits resets the connections it kept alive for its next request: no
        fault of the server's, so not printed. Any other error still is."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class FakeLLM:
    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        """``tls``: a server context to answer over HTTPS with, as the real APIs do."""
        self.tls = tls
        self.requests: list[RecordedRequest] = []
        self.events_sent: list[tuple[float, str]] = []
        self.url = ""
        # GET /v1/models (and /v1/models/<id>): the list as the APIs name the models, how long
        # it takes, and the requests for it (apart from ``requests``: model requests only).
        self.models: tuple[str, ...] = tuple(spec.partition(":")[2] for spec in MODELS.values())
        self.models_delay, self.listings = 0.0, list[RecordedRequest]()
        self.heads: list[RecordedRequest] = []  # HEAD requests, of any path
        self._queue: list[Reply | Failure] = []
        self._routes: list[tuple[str, list[Reply | Failure]]] = []  # (marker, its replies)
        self._changed = threading.Condition()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self.accepted_keys: set[str] | None = None  # None: any key; else others answer 401

    def __enter__(self) -> FakeLLM:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake, self._server.tls = self, self.tls
        scheme = "https" if self.tls else "http"
        self.url = f"{scheme}://127.0.0.1:{self._server.server_address[1]}"
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
        record = RecordedRequest(path, headers, body, arrived, client_port=h.client_address[1])
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
            entries = [model_entry(fmt, m) for m in self.models]
            answer: JSON = {"object": "list", "data": entries}
            if fmt == "anthropic":
                answer = {"data": entries, "has_more": False, "first_id": None, "last_id": None}
            data = compact_json(model_entry(fmt, wanted) if wanted else answer).encode()
            self._head(h, record, 200, {"Content-Type": "application/json"} | {
                "Content-Length": str(len(data))
            })  # fmt: skip
            h.wfile.write(data)
        with self._changed:
            record.finished_at = time.monotonic()
            self._changed.notify_all()

    def handle_head(self, h: _Handler) -> None:
        """Any path: 404 with no body, on a connection kept alive (as the APIs answer). Recorded
        on arrival, as the other requests are, so that a client holding its answer finds it
        in ``heads``."""
        headers = {k.lower(): v for k, v in h.headers.items()}
        path = h.path.split("?", 1)[0]
        record = RecordedRequest(
            path, headers, {}, time.monotonic(), client_port=h.client_address[1]
        )
        with self._changed:
            self.heads.append(record)
            self._changed.notify_all()
        self._head(h, record, 404, {"Content-Length": "0"})
        with self._changed:
            record.finished_at = time.monotonic()
            self._changed.notify_all()

    def wait_for_heads(self, n: int, timeout: float = 10) -> None:
        """Until ``n`` ``HEAD`` requests have been answered."""

        def answered() -> bool:
            return sum(record.finished_at is not None for record in self.heads) >= n

        with self._changed:
            if not self._changed.wait_for(answered, timeout):
                raise TimeoutError(f"FakeLLM: wanted {n} HEAD requests in {timeout}s")

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
        data = compact_json(error_body(fmt, fail.status, message, fail.code)).encode()
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
        record.status, record.answered_at = status, time.monotonic()
        h.send_response(status)
        headers.update({"request-id": fresh_id("req_"), "x-request-id": fresh_id("req_")})
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
                self._hung_up(h, record)
                return
            frame = ((f"event: {name}\n" if name else "") + f"data: {data}\n\n").encode()
            frame = bedrock_frame(data.encode()) if bedrock else frame
            h.wfile.write(b"%x\r\n%s\r\n" % (len(frame), frame))  # one HTTP chunk per event
            self.events_sent.append((time.monotonic(), label))
        if cut is not None:
            # No final chunk: httpx sees an incomplete body, as when a proxy drops the stream.
            h.connection.shutdown(socket.SHUT_RDWR)
            h.close_connection = True
        elif self._pause(h, reply.linger):
            h.wfile.write(b"0\r\n\r\n")
        else:
            self._hung_up(h, record)

    def _hung_up(self, h: _Handler, record: RecordedRequest) -> None:
        """The client left mid-stream (or the server stops): the connection is not reused."""
        record.client_closed = not self._stopping.is_set()
        h.close_connection = True

    def _pause(self, h: _Handler, seconds: float) -> bool:
        """Sleep ``seconds``; False as soon as the client hangs up or the server stops."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if self._stopping.is_set():
                return False
            readable, _, _ = select.select([h.connection], [], [], min(left, 0.02))
            if readable:  # end of file, or a pipelined request that must wait its turn
                # Peeked below TLS (an SSL socket takes no flags): b"" is the end of file.
                if socket.socket.recv(h.connection, 1, socket.MSG_PEEK) == b"":
                    return False
                time.sleep(min(left, 0.02))
        return True
