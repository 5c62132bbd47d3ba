"""``initialize``, answered before the server is loaded.

Most of a Python agent's start is importing: the event loop alone (asyncio and anyio's backend)
takes more than half of a native agent's whole start, and logging, the router and the session
machinery come on top. An editor sends ``initialize`` first and waits for it, and its answer
needs none of that: the settings and ``handlers.greeting``. So ``heron acp`` reads the first
line with a blocking read and answers it at once; the server is loaded afterwards and begins
with what was read beyond that line.

Only a plain, well-formed ``initialize`` request that ``greet`` accepts is answered here: an
integer id, no escapes or lone surrogates to clean, nothing nested too deep. Anything else is
left to the server, whole, which answers it as it answers any message: the protocol's errors
have one home.

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
from collections.abc import Generator
from typing import NamedTuple

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

FIRST_LINE_LIMIT = 1024 * 1024  # an initialize request is a few hundred bytes
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)  # what the server stops on too


class Greeting(NamedTuple):
    """An ``initialize`` the front door answered: the editor it described, and both frames."""

    client: ClientInfo
    request: bytes  # the line as received, for the trace
    answer: bytes  # the response frame, without its newline


class Opening(NamedTuple):
    """How the connection began: the input read that the server has yet to handle, the stop
    signals received so far (the list grows until the server's own handlers replace the front
    door's), and the ``initialize`` answered here (if it was)."""

    unread: bytes
    stops: list[signal.Signals]
    greeting: Greeting | None = None


class _Stopped(Exception):
    """A stop signal arrived while the front door waited for the first line."""


def open_connection(in_fd: int, out_fd: int, settings: Settings) -> Opening:
    """Read the first line and answer it if it is ``initialize``. Blocks until a line or the end
    of the input arrives, or a stop signal (then ``stops`` is not empty and nothing was
    answered)."""
    stops: list[signal.Signals] = []
    reading = True

    def stop(number: int, frame: object) -> None:
        stops.append(signal.Signals(number))
        if reading:
            raise _Stopped

    try:
        for number in STOP_SIGNALS:
            signal.signal(number, stop)  # replaced by the server's handlers once it runs
        with _signal_wakeup() as wakeup:
            read = _first_line(in_fd, wakeup)
    except _Stopped:
        return Opening(b"", stops)
    finally:
        reading = False  # from now on a stop is held for the server
    line, newline, rest = read.partition(b"\n")
    greeting = _answer(line, settings) if newline else None
    if greeting is None:
        return Opening(read, stops)
    with contextlib.suppress(OSError):  # the editor is gone: the server finds out and ends
        write_blocking(out_fd, greeting.answer + b"\n")
    return Opening(rest, stops, greeting)


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


def _first_line(in_fd: int, wakeup: int) -> bytes:
    """Input up to and including the first newline (and whatever came with it), or all of it
    when it ends first or grows past ``FIRST_LINE_LIMIT``. A byte on ``wakeup`` means a signal
    came: its handler runs before the next wait (and a stop's ends the reading)."""
    chunks: list[bytes] = []
    size = 0
    while size <= FIRST_LINE_LIMIT:
        try:
            ready, _, _ = select.select([in_fd, wakeup], [], [])
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
    if may_hold_lone_surrogates(line):
        return None
    try:
        message = as_object(json.loads(line, parse_constant=not_a_json_constant))
    except (ValueError, RecursionError):
        return None
    if message is None or deeper_than(message, MAX_NESTING):
        return None
    request_id = message.get("id")
    if (
        message.get("jsonrpc") != "2.0"
        or message.get("method") != "initialize"
        or type(request_id) is not int
    ):
        return None
    try:
        client, result = greet(message.get("params"), settings)
    except RpcError:
        return None
    return Greeting(client, line, encode({"jsonrpc": "2.0", "id": request_id, "result": result}))
