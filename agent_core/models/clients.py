"""One SDK client per endpoint and key, shared by every session of the process.

A client holds the connection pool and the TLS context; building one per session made each
session's first request pay for a new client, a new connection and a new handshake. Clients
are built in a worker thread (``warm_up``), so the building is guarded by a lock.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from agent_core.providers import ProviderSettings

Client = TypeVar("Client")

_clients: dict[tuple[str, ProviderSettings], Any] = {}
_lock = threading.Lock()


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
