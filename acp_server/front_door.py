"""``initialize``, answered before the server is loaded.

Most of a Python agent's start is importing: the event loop alone (asyncio and anyio's backend)
takes more than half of a native agent's whole start, and logging, the router and the session
machinery come on top. An editor sends ``initialize`` first and waits for it, and its answer
needs none of that: the settings and ``handlers.greeting``. So ``heron acp`` reads the first
line with a blocking read and answers it at once; the server is loaded afterwards and begins
with what was read beyond that line.

An editor that opens a session at start sends ``session/new`` (or ``session/load``, to reopen
the last thread) the moment ``initialize`` is answered, and the server's load would hold it up.
So the front door waits a moment longer (``NEXT_LINE_WAIT_S``) for the next line, and answers
either too: a new session's answer follows from the settings alone
(``handlers.session_setup``), a load's replay and answer from the session store's file
(``handlers.load_at_once``); the server builds (and for a new one, stores) and opens the
session before it reads anything else (``Opening.opened``). A line that is neither, or none in
that moment, is the server's.

Only a plain, well-formed request that the front door can answer whole is answered here: an
integer id, no escapes or lone surrogates to clean, nothing nested too deep, valid params, a
configuration without problems. Anything else is left to the server, whole, which answers it as
it answers any message: the protocol's errors have one home.

A stop signal (SIGTERM, SIGINT, SIGHUP) while the first line is awaited ends the process: there
is nothing to stop yet. One that comes after, while the server loads, is held until the server's
own handlers are in place, and the server stops on it as it would on any.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import time
from collections.abc import Generator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from acp_server.handlers.client import ClientInfo
from acp_server.handlers.greeting import greet
from acp_server.jsonrpc.errors import RpcError
from acp_server.jsonrpc.framing import encode
from acp_server.jsonrpc.stdio import READ_CHUNK, write_blocking
from acp_server.jsonrpc.values import (
    MAX_NESTING,
    as_object,
    deeper_than,
    may_hold_lone_surrogates,
    not_a_json_constant,
)
from agent_core.config import Settings
from agent_core.errors import HeronError

if TYPE_CHECKING:  # what answering session/new or session/load needs loads only when one comes
    from acp_server.session_parts import SessionSetup
    from agent_core.sessions.store import StoredSession

FIRST_LINE_LIMIT = 1024 * 1024  # an initialize request is a few hundred bytes
NEXT_LINE_WAIT_S = 0.05  # how long a session/new or session/load sent at once may take to arrive
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)  # what the server stops on too


class Greeting(NamedTuple):
    """An ``initialize`` the front door answered: the editor it described, and both frames."""

    client: ClientInfo
    request: bytes  # the line as received, for the trace
    answer: bytes  # the response frame, without its newline


class Opened(NamedTuple):
    """A ``session/new`` or ``session/load`` the front door answered: the session to build (a
    load's as stored), the request, the notifications sent before the answer (a load's
    replay), and the answer."""

    setup: SessionSetup
    request: bytes
    answer: bytes
    stored: StoredSession | None = None  # None: a new session
    replay: tuple[bytes, ...] = ()


class Opening(NamedTuple):
    """How the connection began: the input read that the server has yet to handle, the stop
    signals received so far (the list grows until the server's own handlers replace the front
    door's), the ``initialize`` answered here (if it was), and the ``session/new`` (if one was)."""

    unread: bytes
    stops: list[signal.Signals]
    greeting: Greeting | None = None
    opened: Opened | None = None


class _Stopped(Exception):
    """A stop signal arrived while the front door waited for the first line."""


def open_connection(
    in_fd: int, out_fd: int, settings: Settings, *, problem: str | None = None
) -> Opening:
    """Read the first line and answer it if it is ``initialize``; then a ``session/new`` that
    follows at once. Blocks until a line or the end of the input arrives, or a stop signal (then
    ``stops`` is not empty and nothing was answered). ``problem``: what is wrong with the
    configuration (sessions are then left to the server, which says it)."""
    stops: list[signal.Signals] = []
    reading = True

    def stop(number: int, frame: object) -> None:
        stops.append(signal.Signals(number))
        if reading:
            raise _Stopped

    with _signal_wakeup() as wakeup:
        try:
            for number in STOP_SIGNALS:
                signal.signal(number, stop)  # replaced by the server's handlers once it runs
            read = _first_line(in_fd, wakeup)
        except _Stopped:
            return Opening(b"", stops)
        finally:
            reading = False  # from now on a stop is held for the server
        line, newline, rest = read.partition(b"\n")
        greeting = _answer(line, settings) if newline else None
        if greeting is None:
            return Opening(read, stops)
        _send(out_fd, greeting.answer)
        if problem is not None:
            return Opening(rest, stops, greeting)
        if b"\n" not in rest:
            rest += _first_line(in_fd, wakeup, wait=NEXT_LINE_WAIT_S, stops=stops)
    line, newline, after = rest.partition(b"\n")
    opened = _open_session(line, settings, greeting.client) if newline and not stops else None
    if opened is None:
        return Opening(rest, stops, greeting)
    _send(out_fd, b"".join(frame + b"\n" for frame in opened.replay) + opened.answer)
    return Opening(after, stops, greeting, opened)


def _send(out_fd: int, frame: bytes) -> None:
    with contextlib.suppress(OSError):  # the editor is gone: the server finds out and ends
        write_blocking(out_fd, frame + b"\n")


@contextlib.contextmanager
def _signal_wakeup() -> Generator[int]:
    """A pipe that a signal writes to the moment it arrives. Waiting on it beside the input
    closes the gap a plain read leaves: a signal that lands after the last check for pending
    handlers and before the read begins does not interrupt the read, which would wait on."""
    wake_out, wake_in = os.pipe()
    os.set_blocking(wake_in, False)
    before = signal.set_wakeup_fd(wake_in, warn_on_full_buffer=False)
    try:
        yield wake_out
    finally:
        signal.set_wakeup_fd(before)
        os.close(wake_out)
        os.close(wake_in)


def _first_line(
    in_fd: int, wakeup: int, *, wait: float | None = None, stops: Sequence[object] = ()
) -> bytes:
    """Input up to and including the first newline (and whatever came with it), or all of it
    when it ends first or grows past ``FIRST_LINE_LIMIT``. A byte on ``wakeup`` means a signal
    came: its handler runs before the next wait (and a stop's ends the reading, by raising or
    by growing ``stops``). ``wait``: give up after that many seconds (None: never)."""
    chunks: list[bytes] = []
    size = 0
    deadline = None if wait is None else time.monotonic() + wait
    while size <= FIRST_LINE_LIMIT and not stops:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            break
        try:
            ready, _, _ = select.select([in_fd, wakeup], [], [], left)
            if not ready:
                break
            if in_fd not in ready:
                os.read(wakeup, 64)
                continue
            chunk = os.read(in_fd, READ_CHUNK)
        except OSError:
            break  # the server's read says what happened
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if b"\n" in chunk:
            break
    return b"".join(chunks)


def _answer(line: bytes, settings: Settings) -> Greeting | None:
    """The answered greeting, when ``line`` is an ``initialize`` request the front door may
    answer; None leaves it to the server."""
    message = _request(line, "initialize")
    if message is None:
        return None
    try:
        client, result = greet(message.get("params"), settings)
    except RpcError:
        return None
    return Greeting(client, line, _result(message, result))


def _open_session(line: bytes, settings: Settings, client: ClientInfo) -> Opened | None:
    """The answered ``session/new`` or ``session/load``, when ``line`` is one the front door
    may answer (valid params, a model with credentials, for a load a stored session it can
    replay whole); None leaves it to the server."""
    message = _request(line, "session/new", "session/load")
    request = as_object(message.get("params")) if message is not None else None
    if message is None or request is None or not settings.has_credentials():
        return None
    if message["method"] == "session/load":
        return _load_session(line, message, request, settings, client)
    from acp_server.handlers.session_setup import new_setup, opening_options, opening_result

    try:
        setup = new_setup(request)
        options = opening_options(settings, setup)
    except (RpcError, HeronError):
        return None
    return Opened(setup, line, _result(message, opening_result(setup.session_id, options)))


def _load_session(
    line: bytes,
    message: dict[str, Any],
    request: dict[str, Any],
    settings: Settings,
    client: ClientInfo,
) -> Opened | None:
    from acp_server.handlers.load_at_once import answer_load
    from acp_server.jsonrpc.framing import notifications

    loaded = answer_load(request, settings, client)
    if loaded is None:
        return None
    replay = tuple(notifications("session/update", loaded.updates))
    answer = _result(message, loaded.result)
    return Opened(loaded.setup, line, answer, loaded.stored, replay)


def _request(line: bytes, *methods: str) -> dict[str, Any] | None:
    """``line`` as a plain request for one of ``methods`` with an integer id, or None."""
    if may_hold_lone_surrogates(line):
        return None
    try:
        message = as_object(json.loads(line, parse_constant=not_a_json_constant))
    except (ValueError, RecursionError):
        return None
    if message is None or deeper_than(message, MAX_NESTING):
        return None
    if (
        message.get("jsonrpc") != "2.0"
        or message.get("method") not in methods
        or type(message.get("id")) is not int
    ):
        return None
    return message


def _result(request: dict[str, Any], result: Any) -> bytes:
    return encode({"jsonrpc": "2.0", "id": request["id"], "result": result})
