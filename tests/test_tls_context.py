"""The providers' clients share one TLS context (``agent_core/models/tls.py``), made once, the
way ``verify=True`` would make it, however many threads ask at once."""

from __future__ import annotations

import ssl
import threading

from agent_core.models import tls


def test_the_context_verifies_servers_as_verify_true_would() -> None:
    context = tls.context()
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname


def test_threads_asking_at_once_get_the_one_context() -> None:
    got: list[ssl.SSLContext] = []
    threads = [threading.Thread(target=lambda: got.append(tls.context())) for _ in range(8)]
    tls.begin()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(got) == 8
    assert all(context is got[0] for context in got)
    assert tls.context() is got[0]
