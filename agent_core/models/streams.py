"""A response stream read to its end after its last event, so that its connection is kept.

An HTTP/1.1 connection goes back to the client's pool only once its response has been read
whole; closed with bytes unread, it is closed for good, and the next request opens another: a
TCP and a TLS handshake, tens to hundreds of milliseconds against a real API, for every model
request of a turn's tool loop. Anthropic's last event (``message_stop``) and the Responses
API's (``response.completed``) come just before the end of the body, so the adapters read on
to it before they report the response complete (Chat Completions' stream ends with ``[DONE]``,
which the SDK reads to the end itself).

The wait is bounded: a server (or a proxy) that holds the body open after the last event
costs the connection, never the turn. Nothing after the last event is needed, so a failure
to read it (a connection cut, an error event) costs the connection too, and is not reported.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterable

import anyio

END_WAIT_S = 1.0  # how long the end of a body may take to come after its last event


async def read_to_end(events: AsyncIterable[object]) -> None:
    """Read and drop what is left of ``events``: for at most END_WAIT_S, and never raising
    (but a cancellation of the turn, which is not an ``Exception``)."""
    with anyio.move_on_after(END_WAIT_S), contextlib.suppress(Exception):
        async for _ in events:
            pass
