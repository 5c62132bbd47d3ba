"""A bidirectional JSON-RPC 2.0 peer over a newline-delimited byte transport.

Incoming requests each run in their own task, so a notification such as ``session/cancel`` is
read and handled while a long request is still running. Notifications run in tasks too, started
in arrival order after the requests before them, so a handler's first synchronous steps always
see the notifications that came later as later. Outgoing requests are matched to responses by id.

The connection knows no ACP method names: it is given a ``Dispatcher`` and calls it.
``$/cancel_request`` is JSON-RPC plumbing and is handled here.
"""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import nullcontext
from typing import Any, Protocol

import anyio
from msgspec import Struct, field

from acp_server.jsonrpc.errors import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    PARSE_ERROR,
    REQUEST_CANCELLED,
    RpcError,
)
from acp_server.jsonrpc.framing import (
    DEFAULT_MAX_LINE_BYTES,
    LineSplitter,
    OversizedLine,
    encode,
    notifications,
)
from acp_server.jsonrpc.transport import TransportClosed
from acp_server.jsonrpc.values import (
    MAX_NESTING,
    as_object,
    deeper_than,
    may_hold_lone_surrogates,
    not_a_json_constant,
    without_lone_surrogates,
)

log = logging.getLogger("heron.jsonrpc")

CANCEL_REQUEST = "$/cancel_request"
SHUTDOWN_GRACE_S = 0.5
_TOO_DEEP = f"arrays and objects nested more than {MAX_NESTING} levels deep"

RequestId = int | str
Trace = Callable[[str, bytes], None]


class Transport(Protocol):
    def chunks(self) -> AsyncIterator[bytes]: ...
    async def send(self, frame: bytes) -> None: ...
    async def flush(self) -> None: ...
    async def run_writer(self) -> None: ...
    def close(self) -> None: ...


class Dispatcher(Protocol):
    """What the connection calls; implemented by the ACP layer."""

    async def handle_request(self, method: str, params: Any) -> Any:
        """Return the result (or a ``Reply``), or raise ``RpcError``."""
        ...

    async def handle_notification(self, method: str, params: Any) -> None: ...

    async def input_closed(self) -> None:
        """The peer closed its end: stop running work so requests can finish."""
        ...

    def cancel_request(self, method: str, params: Any) -> bool:
        """``$/cancel_request`` for a running request: return True to let it finish its own
        way (e.g. with a partial result), False to have it cancelled and answered -32800."""
        ...


class Reply(Struct, frozen=True):
    """A result plus work to start once the response is queued (so it reaches the peer first)."""

    result: Any
    after: Callable[[], Awaitable[None]]


class _Running(Struct, frozen=True):
    method: str
    params: Any
    scope: anyio.CancelScope


class _Waiter(Struct):
    done: anyio.Event = field(default_factory=anyio.Event)
    result: Any = None
    error: RpcError | None = None


class Connection:
    def __init__(
        self,
        transport: Transport,
        *,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        trace: Trace | None = None,
    ) -> None:
        self._transport = transport
        self._max_line_bytes = max_line_bytes
        self._trace = trace
        self._ids = itertools.count(1)
        self._waiters: dict[int, _Waiter] = {}
        self._running: dict[tuple[str, Any], _Running] = {}
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    async def serve(self, dispatcher: Dispatcher) -> None:
        """Serve until the input ends, then let running requests finish briefly and return."""
        async with anyio.create_task_group() as outer:
            outer.start_soon(self._transport.run_writer)
            async with anyio.create_task_group() as work:
                splitter = LineSplitter(self._max_line_bytes)
                async for chunk in self._transport.chunks():
                    for line in splitter.feed(chunk):
                        await self._on_line(line, dispatcher, work)
                for line in splitter.finish():
                    await self._on_line(line, dispatcher, work)
                log.info("input closed; shutting down")
                self._closed = True
                self._fail_waiters(RpcError(INTERNAL_ERROR, "the client closed the connection"))
                await dispatcher.input_closed()
                work.cancel_scope.deadline = anyio.current_time() + SHUTDOWN_GRACE_S
            self._transport.close()

    async def request(self, method: str, params: Any, *, timeout: float | None = None) -> Any:  # noqa: ASYNC109
        """Send a request to the peer and wait for its result (raises ``RpcError``)."""
        if self._closed:
            raise RpcError(INTERNAL_ERROR, "the client closed the connection")
        request_id = next(self._ids)
        waiter = self._waiters[request_id] = _Waiter()
        try:
            await self._send(
                {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
            )
            with anyio.fail_after(timeout) if timeout is not None else nullcontext():
                await waiter.done.wait()
        except TimeoutError:
            await self.notify(CANCEL_REQUEST, {"requestId": request_id})
            raise RpcError(REQUEST_CANCELLED, f"{method} got no answer in {timeout:g} s") from None
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await self.notify(CANCEL_REQUEST, {"requestId": request_id})
            raise
        finally:
            del self._waiters[request_id]
        if waiter.error is not None:
            raise waiter.error
        return waiter.result

    async def notify(self, method: str, params: Any) -> None:
        await self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def notify_encoded(self, method: str, params: Sequence[bytes]) -> None:
        """One notification per item of ``params``, each already JSON (a replay's stored
        updates): framed around it without decoding it, and queued as one write."""
        frames = notifications(method, params)
        if self._trace:
            for frame in frames:
                self._trace("send", frame)
        try:
            await self._transport.send(b"".join(frame + b"\n" for frame in frames))
        except TransportClosed:
            log.debug("dropped %d messages: output closed", len(frames))

    # -- incoming -------------------------------------------------------------------------

    async def _on_line(
        self, line: bytes | OversizedLine, dispatcher: Dispatcher, work: anyio.abc.TaskGroup
    ) -> None:
        if isinstance(line, OversizedLine):
            limit = self._max_line_bytes // (1024 * 1024)
            message = f"Invalid request: a {line.size}-byte message exceeds the {limit} MiB limit"
            await self._send_error(None, RpcError(INVALID_REQUEST, message))
            return
        if not line.strip():
            return
        if self._trace:
            self._trace("recv", line)
        try:
            message = json.loads(line, parse_constant=not_a_json_constant)
        except (ValueError, UnicodeDecodeError) as exc:
            await self._send_error(None, RpcError(PARSE_ERROR, f"Parse error: {exc}"))
            return
        except RecursionError:
            await self._send_error(None, RpcError(PARSE_ERROR, f"Parse error: {_TOO_DEEP}"))
            return
        if deeper_than(message, MAX_NESTING):
            await self._send_error(
                _request_id(message), RpcError(INVALID_REQUEST, f"Invalid request: {_TOO_DEEP}")
            )
            return
        if may_hold_lone_surrogates(line):
            message = _well_formed(message)
        if isinstance(message, list):
            error = RpcError(INVALID_REQUEST, "Invalid request: ACP does not use JSON-RPC batches")
            await self._send_error(None, error)
            return
        if not isinstance(message, dict):
            await self._send_error(
                None, RpcError(INVALID_REQUEST, "Invalid request: not an object")
            )
            return
        await self._on_message(message, dispatcher, work)  # pyright: ignore[reportUnknownArgumentType]

    async def _on_message(
        self, message: dict[str, Any], dispatcher: Dispatcher, work: anyio.abc.TaskGroup
    ) -> None:
        answer_id = _request_id(message)
        valid_id = answer_id is not None
        problem = _envelope_problem(message, valid_id)
        if problem:
            await self._send_error(answer_id, RpcError(INVALID_REQUEST, problem))
            return
        method = message.get("method")
        if method is None:
            self._on_response(message)
        elif "id" not in message:
            work.start_soon(self._on_notification, method, message.get("params"), dispatcher)
        elif answer_id is not None:
            work.start_soon(self._run_request, answer_id, method, message.get("params"), dispatcher)

    def _on_response(self, message: dict[str, Any]) -> None:
        waiter = self._waiters.get(message["id"])
        if waiter is None:
            log.warning("response to unknown request id %r", message["id"])
            return
        if "error" in message:
            waiter.error = RpcError.from_json(message["error"])
        else:
            waiter.result = message["result"]
        waiter.done.set()

    async def _on_notification(self, method: str, params: Any, dispatcher: Dispatcher) -> None:
        if method == CANCEL_REQUEST:
            running = self._running.get(_key((as_object(params) or {}).get("requestId")))
            if running and not dispatcher.cancel_request(running.method, running.params):
                running.scope.cancel()
            return
        try:
            await dispatcher.handle_notification(method, params)
        except RpcError as exc:
            log.warning("notification %s rejected: %s", method, exc.message)
        except Exception:  # the dispatcher boundary: a bad notification must not stop serving
            log.exception("notification %s failed", method)

    async def _run_request(
        self, request_id: RequestId, method: str, params: Any, dispatcher: Dispatcher
    ) -> None:
        key = _key(request_id)
        scope = anyio.CancelScope()
        self._running[key] = _Running(method, params, scope)
        try:
            with scope:
                result = await dispatcher.handle_request(method, params)
                after = None
                if isinstance(result, Reply):
                    result, after = result.result, result.after
                await self._send({"jsonrpc": "2.0", "id": request_id, "result": result})
                if after is not None:
                    await self._transport.flush()  # the peer has the response before more work
                    await after()
                return
            await self._send_error(request_id, RpcError(REQUEST_CANCELLED, "Request cancelled"))
        except RpcError as exc:
            await self._send_error(request_id, exc)
        except Exception as exc:  # the dispatcher boundary: always answer
            log.exception("request %s failed", method)
            detail = f"Internal error in {method}: {type(exc).__name__}: {exc}"
            await self._send_error(request_id, RpcError(INTERNAL_ERROR, detail))
        finally:
            self._running.pop(key, None)

    def _fail_waiters(self, error: RpcError) -> None:
        for waiter in self._waiters.values():
            waiter.error = error
            waiter.done.set()

    # -- outgoing -------------------------------------------------------------------------

    async def _send_error(self, request_id: RequestId | None, error: RpcError) -> None:
        await self._send({"jsonrpc": "2.0", "id": request_id, "error": error.to_json()})

    async def _send(self, message: dict[str, Any]) -> None:
        frame = encode(message)
        if self._trace:
            self._trace("send", frame)
        try:
            await self._transport.send(frame + b"\n")
        except TransportClosed:
            log.debug("dropped a message: output closed")


def _well_formed(message: Any) -> Any:
    """``message`` with lone surrogates replaced everywhere but in its id, which is echoed."""
    clean: Any = without_lone_surrogates(message)
    original = as_object(message)
    if original is not None and "id" in original:
        clean["id"] = original["id"]
    return clean


def _request_id(message: Any) -> RequestId | None:
    """The id to answer ``message`` with: its own when it is a valid one, else None."""
    request_id = (as_object(message) or {}).get("id")
    if isinstance(request_id, int | str) and not isinstance(request_id, bool):
        return request_id
    return None


def _key(request_id: Any) -> tuple[str, Any]:
    """Request ids 1 and "1" are different requests."""
    return (type(request_id).__name__, request_id)


def _envelope_problem(message: dict[str, Any], valid_id: bool) -> str | None:
    if message.get("jsonrpc") != "2.0":
        return 'Invalid request: "jsonrpc" must be "2.0"'
    if "id" in message and not valid_id:
        return 'Invalid request: "id" must be a string or an integer'
    if "method" in message:
        if not isinstance(message["method"], str):
            return 'Invalid request: "method" must be a string'
        if not isinstance(message.get("params", {}), dict | list):
            return 'Invalid request: "params" must be an object or an array'
        return None
    if not valid_id or ("result" in message) == ("error" in message):
        return "Invalid request: neither a request, a notification nor a response"
    return None
