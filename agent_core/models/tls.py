"""One TLS context for the process's HTTPS clients: the SDKs' and the model lists'.

Each client that builds its own parses the CA store again: ~20 ms, and ~0.8 MB kept. OpenSSL
parses it without the interpreter lock, so the one context is begun in a thread of its own
beside the SDK's import (``acp_server.loading``): a first prompt sent at once finds it made
instead of waiting for it once the SDK is in. It is the context each client would have built
(httpx's default: ``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` when set, else the system's store).
"""

from __future__ import annotations

import ssl
import threading

_lock = threading.Lock()
_made: list[ssl.SSLContext] = []


def begin() -> None:
    """Start making the context in a daemon thread; ``context()`` waits for it."""
    threading.Thread(target=context, name="TLS context", daemon=True).start()


def context() -> ssl.SSLContext:
    """The process's TLS context, made on first use (or waited for, once begun)."""
    with _lock:
        if not _made:
            import httpcore2

            _made.append(httpcore2.default_ssl_context())
        return _made[0]
