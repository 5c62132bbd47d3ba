"""One TLS context for the providers' clients, made early and beside the rest.

Each HTTP client made with the default ``verify=True`` builds a context of its own, loading the
system's certificates: ~20 ms, for each model client and the model lists alike. OpenSSL loads
them without holding Python's interpreter lock, so a context begun in a thread of its own when
Heron starts (``begin``, from ``acp_server.loading``) is made on the machine's other core while
the SDK imports, and the first request's client finds it ready (``context``). It is the context
``verify=True`` would make (``httpx2.create_ssl_context``: ``SSL_CERT_FILE`` and ``SSL_CERT_DIR``
followed); an ``ssl.SSLContext`` may serve many connections and threads.
"""

from __future__ import annotations

import ssl
import threading

_lock = threading.Lock()
_context: ssl.SSLContext | None = None


def begin() -> None:
    """Make the context in a daemon thread, now."""
    threading.Thread(target=context, name="make the TLS context", daemon=True).start()


def context() -> ssl.SSLContext:
    """The shared context: made the first time (a caller meanwhile waits for that one)."""
    global _context
    with _lock:
        if _context is None:
            import httpx2

            _context = httpx2.create_ssl_context()
        return _context
