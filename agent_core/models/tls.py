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
VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR")  # in the order httpx honours them
ON_DEMAND = "each read when a handshake needs it"

_lock = threading.Lock()
_made: list[tuple[ssl.SSLContext, str]] = []  # the context, and where its certificates come from


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

            try:
                _made.append(_make_context())
            except (OSError, ssl.SSLError) as exc:
                raise ModelConfigError(_unreadable(exc)) from None
        return _made[0][0]


def source() -> str:
    """Where the context's certificates come from (``heron doctor``); raises as ``context``."""
    context()
    return _made[0][1]


def _make_context() -> tuple[ssl.SSLContext, str]:
    """The context, and where its certificates come from: the system's hashed directory where
    it serves (``from_directory``), else httpx's own context."""
    import ssl

    import httpcore2

    paths = ssl.get_default_verify_paths()  # compiled in: OpenSSL's own, not the variables
    directory, bundle = paths.openssl_capath, paths.openssl_cafile
    if _system_store_named(directory, bundle):
        lazy = from_directory(directory, bundle)
        if lazy is not None:
            return lazy, f"the system's store ({directory}), {ON_DEMAND}"
    made = httpcore2.default_ssl_context()
    # The first variable set is the one httpx took.
    named = (f"{v} ({os.environ[v]})" for v in VARIABLES if os.environ.get(v))  # noqa: TID251
    where = next(named, "the system's store")
    count = made.cert_store_stats()["x509_ca"]
    loaded = f"{count} certificate{'s' if count > 1 else ''} loaded" if count else ON_DEMAND
    return made, f"{where}, {loaded}"


def _system_store_named(directory: str, bundle: str) -> bool:
    """Linux, and ``SSL_CERT_FILE`` and ``SSL_CERT_DIR`` unset or naming the system's own bundle
    and directory (some images set them so): any other store is what the client trusts."""
    if sys.platform != "linux":
        return False
    for variable, system in zip(VARIABLES, (bundle, directory), strict=True):
        named = os.environ.get(variable)  # noqa: TID251 - OpenSSL's variables, read as httpx does
        if named and Path(named).resolve() != Path(system).resolve():
            return False
    return True


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
