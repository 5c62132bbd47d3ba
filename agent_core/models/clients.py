"""One SDK client per endpoint and key, shared by every session of the process.

A client holds the connection pool and the TLS context; building one per session made each
session's first request pay for a new client, a new connection and a new handshake. Clients
are built in a worker thread (``warm_up``), so the building is guarded by a lock. A session
that opens has its model's connection opened ahead (``connect_ahead``), while the user types.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import anyio

from agent_core.providers import ProviderSettings

log = logging.getLogger(__name__)

CONNECT_AHEAD_S = 10.0  # seconds a connection opened ahead may take; the next request tries again

Client = TypeVar("Client")

_clients: dict[tuple[str, ProviderSettings], Any] = {}
_lock = threading.Lock()
_connecting: set[int] = set()  # the clients (by id) a connection is being opened ahead for


def shared(kind: str, provider: ProviderSettings, build: Callable[[], Client]) -> Client:
    """The ``kind`` client for this endpoint, key and headers: the one built before, or
    ``build()``."""
    key = (kind, provider)
    with _lock:
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = build()
            _learn_platform(client)
    return client


def _learn_platform(client: object) -> None:
    """What the SDK works out before a client's first request, worked out now, in this worker
    thread: the OS its headers name (``X-Stainless-OS``). Both SDKs keep it on the client
    (``_platform``) and, until it is known, find it in a thread of the event loop's default
    executor, which that first request starts: ~3 ms of it. An SDK that keeps it elsewhere
    is left to do so."""
    if getattr(client, "_platform", "unknown") is not None:
        return
    sdk = type(client).__module__.partition(".")[0]  # openai, anthropic
    with contextlib.suppress(Exception):
        platform = importlib.import_module(f"{sdk}._base_client").get_platform()
        setattr(client, "_platform", platform)  # noqa: B010 - the SDK's own attribute


async def connect_ahead(client: object | None) -> None:
    """Open the connection ``client``'s next request will use: a ``HEAD`` of its base URL,
    through the SDK's own HTTP client and so into the pool its requests take connections from.
    The answer (a 404, usually) is read and forgotten, and no key is sent. A request made within
    the pool's keep-alive (5 s, the SDKs' default) then skips the TCP and TLS handshakes: two or
    three round trips to the provider. A failure is left to that request to say. An SDK that
    keeps its HTTP client elsewhere, or a client not built yet (None), is left alone. One at a
    time per client: sessions opened together (an editor restoring its threads) share the one
    opened for the first."""
    http, url = getattr(client, "_client", None), getattr(client, "base_url", None)
    head = getattr(http, "head", None)
    if head is None or url is None or id(client) in _connecting:
        return
    _connecting.add(id(client))
    try:
        with anyio.move_on_after(CONNECT_AHEAD_S):
            await head(str(url))
    except Exception as exc:  # noqa: BLE001 - the request that follows says what is wrong
        log.debug("no connection opened ahead to %s: %s", url, exc)
    finally:
        _connecting.discard(id(client))
