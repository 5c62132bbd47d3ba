"""One TLS context for the process's HTTPS clients: the SDKs' and the model lists'.

Each client that builds its own parses the CA store again: ~20 ms, and ~0.8 MB kept. OpenSSL
parses it without the interpreter lock, so the one context is begun in a thread of its own
beside the SDK's import (``acp_server.loading``): a first prompt sent at once finds it made
instead of waiting for it once the SDK is in. It is the context each client would have built
(httpx's default: ``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` when set, else the system's store).
"""

from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING

from agent_core.errors import ModelConfigError

if TYPE_CHECKING:  # ssl (~7 ms) loads with the context, off the path of `session/new`
    import ssl

_lock = threading.Lock()
_made: list[ssl.SSLContext] = []


def begin() -> None:
    """Start making the context in a daemon thread; ``context()`` waits for it."""
    threading.Thread(target=_make, name="TLS context", daemon=True).start()


def _make() -> None:
    with contextlib.suppress(ModelConfigError):  # said by the client that needs it
        context()


def context() -> ssl.SSLContext:
    """The process's TLS context, made on first use (or waited for, once begun); raises
    ``ModelConfigError`` with the fix when the certificates cannot be read."""
    with _lock:
        if not _made:
            import ssl

            import httpcore2

            try:
                _made.append(httpcore2.default_ssl_context())
            except (OSError, ssl.SSLError) as exc:
                raise ModelConfigError(_unreadable(exc)) from None
        return _made[0]


def _unreadable(exc: Exception) -> str:
    return (
        f"The TLS certificates could not be read: {exc}. When set, SSL_CERT_FILE or "
        "SSL_CERT_DIR names them: fix or unset it; otherwise install the system's CA "
        "certificates (ca-certificates)."
    )
