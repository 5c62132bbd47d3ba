"""The providers' SDK clients as the session's warm-up leaves them (``models/clients.py``): what
the SDK would work out before its first request is known already, so that request starts no
thread of its own; their connections, opened ahead of the first request and kept from one
request to the next; and the process's one TLS context (``models/tls.py``). Against the fake
model server, with the real SDKs."""

from __future__ import annotations

import os
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path

import anyio
import httpx2
import pytest
import trustme

from agent_core.config import load_settings
from agent_core.messages import TextPart, UserMessage
from agent_core.models import tls
from agent_core.models.base import Model, ModelRequest, ResponseCompleted, StreamEvent
from agent_core.models.registry import create_model
from agent_core.models.streams import END_WAIT_S
from tests.support.fake_llm import MODELS, FakeLLM, Reply, Text

SPECS = list(MODELS.values())  # one model of each provider API
REQUEST = ModelRequest(system="Be brief.", messages=(UserMessage((TextPart("hi"),)),))


def _executor_threads() -> set[str]:
    """The threads of an event loop's default executor (``asyncio_<n>``)."""
    return {t.name for t in threading.enumerate() if t.name.startswith("asyncio_")}


def _model(spec: str, fake: FakeLLM, home: Path) -> Model:
    settings = load_settings({**fake.environment(spec), "HERON_HOME": str(home)}, read_file=False)
    return create_model(spec, settings)


async def _answer(model: Model) -> list[StreamEvent]:
    return [event async for event in model.stream(REQUEST)]


@pytest.mark.parametrize("spec", SPECS)
def test_a_warm_clients_first_request_starts_no_thread(
    spec: str, fake: FakeLLM, tmp_path: Path
) -> None:
    model = _model(spec, fake, tmp_path)
    model.warm_up()  # as the session's warm-up does, in a worker thread
    fake.enqueue(Reply((Text("Hello."),)))

    async def first_request() -> set[str]:
        await _answer(model)
        return _executor_threads()

    assert anyio.run(first_request) == set()
    assert fake.requests, "the request did not reach the model server"


@pytest.mark.parametrize("spec", SPECS)
def test_a_models_requests_share_one_connection(spec: str, fake: FakeLLM, tmp_path: Path) -> None:
    """Each response is read to the end of its body, after its last event, so that its
    connection goes back to the pool: a connection closed unread made every request of a turn
    open a new one (a TCP and a TLS handshake against a real API)."""
    model = _model(spec, fake, tmp_path)
    fake.enqueue(Reply((Text("One."),)), Reply((Text("Two."),)), Reply((Text("Three."),)))

    async def three_requests() -> None:
        for _ in range(3):
            assert isinstance((await _answer(model))[-1], ResponseCompleted)

    anyio.run(three_requests)
    assert len({record.client_port for record in fake.requests}) == 1
    assert not any(record.client_closed for record in fake.requests)


@pytest.mark.parametrize("spec", SPECS)
def test_a_connection_opened_ahead_is_the_one_the_next_request_takes(
    spec: str, fake: FakeLLM, tmp_path: Path
) -> None:
    """``connect_ahead`` (a session opening, while the user types) leaves an open connection in
    the pool the model's requests take theirs from: the request that follows makes no
    handshake. The ``HEAD`` carries no key."""
    model = _model(spec, fake, tmp_path)
    model.warm_up()
    fake.enqueue(Reply((Text("Hello."),)))

    async def ahead_then_request() -> None:
        await model.connect_ahead()
        await _answer(model)

    anyio.run(ahead_then_request)
    (head,), (request,) = fake.heads, fake.requests
    assert head.client_port == request.client_port
    assert not {"authorization", "x-api-key"} & set(head.headers)


def test_sessions_opened_together_share_one_connection_opened_ahead(
    fake: FakeLLM, tmp_path: Path
) -> None:
    """Five sessions' models (one shared client) connecting ahead at once: one ``HEAD``, one
    connection, rather than a handshake each."""
    models = [_model(SPECS[0], fake, tmp_path) for _ in range(5)]
    for model in models:
        model.warm_up()

    async def together() -> None:
        async with anyio.create_task_group() as group:
            for model in models:
                group.start_soon(model.connect_ahead)

    anyio.run(together)
    assert len(fake.heads) == 1


def test_connecting_ahead_to_a_server_that_is_not_there_is_quiet(tmp_path: Path) -> None:
    """Nothing listens: no error (the request will say it), and no wait beyond the refusal."""
    with FakeLLM() as gone:
        pass  # its address, with nothing listening there any more
    model = _model(SPECS[0], gone, tmp_path)
    model.warm_up()
    started = time.monotonic()
    anyio.run(model.connect_ahead)
    assert time.monotonic() - started < 5


def test_a_model_not_yet_built_connects_nowhere(fake: FakeLLM, tmp_path: Path) -> None:
    """Before ``warm_up`` (the SDK not loaded): nothing, rather than an import on the event
    loop."""
    anyio.run(_model(SPECS[1], fake, tmp_path).connect_ahead)
    assert fake.heads == []


@pytest.mark.parametrize("spec", SPECS[:2])
def test_a_body_held_open_after_the_last_event_costs_the_connection_not_the_turn(
    spec: str, fake: FakeLLM, tmp_path: Path
) -> None:
    """A server (or a proxy) that keeps the body open after the last event: the response is
    complete once END_WAIT_S has passed, the connection is dropped, and the next request opens
    another."""
    model = _model(spec, fake, tmp_path)
    fake.enqueue(Reply((Text("Slow to end."),), linger=60), Reply((Text("Next."),)))

    async def two_requests() -> tuple[float, list[StreamEvent]]:
        started = time.monotonic()
        first = await _answer(model)
        took = time.monotonic() - started
        await _answer(model)
        return took, first

    took, first = anyio.run(two_requests)
    assert took < END_WAIT_S + 5  # not the minute the server held the body
    assert isinstance(first[-1], ResponseCompleted) and first[-1].finish == "end_turn"
    held, after = fake.requests
    fake.finished(held)  # the server has seen the hang-up
    assert held.client_closed and held.client_port != after.client_port


def test_the_processs_https_clients_share_one_tls_context(fake: FakeLLM, tmp_path: Path) -> None:
    """Each client building its own TLS context parsed the CA store again (~20 ms, ~1.2 MB):
    the SDKs' clients and the model lists' take the one begun beside the SDK's import. Counted
    in a fresh interpreter, where httpx makes every default context (and ``tls`` the one read
    from a hashed directory)."""
    code = """
import sys, threading, httpcore2
from agent_core.config import load_settings
from agent_core.models import listing, tls
from agent_core.models.registry import create_model
from agent_core.models.streams import END_WAIT_S
made = []
def counted(make):
    def counting(*args, **kwargs):
        context = make(*args, **kwargs)
        if context is not None:
            made.append(threading.current_thread().name)
        return context
    return counting
httpcore2.default_ssl_context = counted(httpcore2.default_ssl_context)
tls.from_directory = counted(tls.from_directory)
tls.begin()
for spec in ("anthropic:claude-bench", "openai:gpt-bench", "openai-chat:bench-model"):
    env = {"HERON_HOME": sys.argv[1], "ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k",
           "ANTHROPIC_BASE_URL": sys.argv[2], "OPENAI_BASE_URL": sys.argv[2]}
    create_model(spec, load_settings(env, read_file=False)).warm_up()
listing._http_client(), listing._http_client()
print(made)
"""
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path), fake.url],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["['TLS", "context']"]


def test_certificates_that_cannot_be_read_name_the_variable_to_fix(tmp_path: Path) -> None:
    """A bad ``SSL_CERT_FILE`` was an internal error out of the SDK's client; it is now the
    configuration error a prompt answers with, naming the variables to check, and once fixed
    the next client takes the context."""
    code = """
import os, sys
from agent_core.errors import ModelConfigError
from agent_core.models import tls
try:
    tls.context()
except ModelConfigError as exc:
    print(exc)
os.environ.pop("SSL_CERT_FILE")
print(type(tls.context()).__name__)
"""
    env = {**os.environ, "SSL_CERT_FILE": str(tmp_path / "ca.pem")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    said, made = out.stdout.splitlines()
    assert said.startswith("The TLS certificates could not be read: [Errno 2]")
    assert "SSL_CERT_FILE or SSL_CERT_DIR names them: fix or unset it" in said
    assert made == "SSLContext"


def _authority(folder: Path, name: str) -> trustme.CA:
    """A certificate authority, its certificate written to ``folder/name``."""
    authority = trustme.CA()
    folder.mkdir(exist_ok=True)
    authority.cert_pem.write_to_path(str(folder / name))
    return authority


def _rehash(folder: Path) -> None:
    """The hashed names OpenSSL looks certificates up by (``update-ca-certificates`` makes them
    for the system's store)."""
    subprocess.run(["openssl", "rehash", str(folder)], check=True, capture_output=True)


def test_a_hashed_directory_is_read_when_a_handshake_needs_it(tmp_path: Path) -> None:
    """A store kept as a hashed directory and a bundle (Debian's): nothing is parsed ahead, and
    a handshake finds its authority in the directory."""
    store = tmp_path / "certs"
    authority = _authority(store, "test-ca.pem")
    _rehash(store)
    (tmp_path / "bundle.pem").write_bytes(authority.cert_pem.bytes())
    context = tls.from_directory(str(store), str(tmp_path / "bundle.pem"))
    assert context is not None
    assert context.cert_store_stats()["x509_ca"] == 0
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(server)

    async def models(url: str) -> int:
        async with httpx2.AsyncClient(verify=context) as client:
            return (await client.get(url + "/v1/models")).status_code

    with FakeLLM(tls=server) as fake:
        assert anyio.run(models, fake.url) == 200
    assert context.cert_store_stats()["x509_ca"] == 1


def test_a_bundle_holding_more_than_the_directory_is_read_whole(tmp_path: Path) -> None:
    """A certificate added to the bundle by hand, not to the directory: the directory alone
    would not trust it, so the client's own context (which reads the bundle) is made."""
    store = tmp_path / "certs"
    first = _authority(store, "first.pem")
    _rehash(store)
    second = _authority(tmp_path / "added", "second.pem")
    bundle = tmp_path / "bundle.pem"
    bundle.write_bytes(first.cert_pem.bytes() + second.cert_pem.bytes())
    assert tls.from_directory(str(store), str(bundle)) is None
    assert tls.from_directory(str(tmp_path / "added"), str(bundle)) is None  # not hashed


def test_a_bundle_the_variables_name_is_what_the_client_trusts(tmp_path: Path) -> None:
    """``SSL_CERT_FILE`` naming a bundle of the user's (a company's CA): that bundle, read whole,
    whatever the system keeps."""
    _authority(tmp_path, "company.pem")
    code = "from agent_core.models import tls; print(tls.context().cert_store_stats()['x509_ca'])"
    env = {**os.environ, "SSL_CERT_FILE": str(tmp_path / "company.pem")}
    env.pop("SSL_CERT_DIR", None)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.split() == ["1"]
