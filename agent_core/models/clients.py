"""One SDK client per endpoint and key, shared by every session of the process.

A client holds the connection pool and the TLS context; building one per session made each
session's first request pay for a new client, a new connection and a new handshake. Clients
are built in a worker thread (``warm_up``), so the building is guarded by a lock.
"""

from __future__ import annotations

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
    return client
