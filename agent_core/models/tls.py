"""One TLS context for the process's HTTPS clients: the SDKs' and the model lists'.

Each client that builds its own parses the CA store again: ~20 ms, and ~1.2 MB kept. OpenSSL
parses it without the interpreter lock, so the one context is begun in a thread of its own
beside the SDK's import (``acp_server.loading``): a first prompt sent at once finds it made
instead of waiting for it once the SDK is in. It trusts what each client's own would have
(httpx's default: ``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` when set, else the system's store).

The system's store is read as OpenSSL's hashed directory where it has one that holds every
certificate of the bundle file (Debian, Ubuntu, Alpine and Arch keep both, made together):
OpenSSL then reads the one certificate a handshake needs, when it needs it, where loading the
bundle parses all ~150 ahead and keeps them (~18 ms, ~1.2 MB). Elsewhere, or when the two
disagree (a bundle edited by hand), it is httpx's context.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from agent_core.errors import ModelConfigError

if TYPE_CHECKING:  # ssl (~7 ms) loads with the context, off the path of `session/new`
    import ssl

HASHED = re.compile(r"[0-9a-f]{8}\.\d+")  # a certificate's name in a hashed directory
PEM_BEGIN = b"-----BEGIN CERTIFICATE-----"

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
                _made.append(_system_directory() or httpcore2.default_ssl_context())
            except (OSError, ssl.SSLError) as exc:
                raise ModelConfigError(_unreadable(exc)) from None
        return _made[0]


def _system_directory() -> ssl.SSLContext | None:
    """The system's store as its hashed directory (Linux), or None. ``SSL_CERT_FILE`` and
    ``SSL_CERT_DIR`` may be set only to the system's own bundle and directory (some images set
    them so): any other file or directory is what the client trusts instead."""
    if sys.platform != "linux":
        return None
    import ssl

    paths = ssl.get_default_verify_paths()  # compiled in: OpenSSL's own, not the variables
    bundle, directory = paths.openssl_cafile, paths.openssl_capath
    for variable, system in (("SSL_CERT_FILE", bundle), ("SSL_CERT_DIR", directory)):
        named = os.environ.get(variable)  # noqa: TID251 - OpenSSL's variables, read as httpx does
        if named and Path(named).resolve() != Path(system).resolve():
            return None
    return from_directory(directory, bundle)


def from_directory(directory: str, bundle: str) -> ssl.SSLContext | None:
    """A client context that looks certificates up in ``directory`` when a handshake needs
    them, if it names at least as many as ``bundle`` holds (no bundle: any); else None."""
    import ssl

    try:
        hashed = sum(1 for entry in Path(directory).iterdir() if HASHED.fullmatch(entry.name))
        bundled = Path(bundle).read_bytes().count(PEM_BEGIN) if Path(bundle).exists() else 0
    except OSError:
        return None
    if not hashed or hashed < bundled:
        return None
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.load_verify_locations(capath=directory)
    return context


def _unreadable(exc: Exception) -> str:
    return (
        f"The TLS certificates could not be read: {exc}. When set, SSL_CERT_FILE or "
        "SSL_CERT_DIR names them: fix or unset it; otherwise install the system's CA "
        "certificates (ca-certificates)."
    )
