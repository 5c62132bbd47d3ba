"""Model requests across a link with a round trip, over TLS, as to a real API: what each
request of a session costs beyond the round trip its answer needs.

The fake model server answers over HTTPS (a certificate of a throwaway authority, which Heron
is told to trust with SSL_CERT_FILE) through ``FarLink``. A request on a kept connection pays
one round trip (the request out, the answer back); one that opens a connection pays the TCP
handshake's round trip and TLS's on top.
"""

from __future__ import annotations

import ssl
import statistics
import tempfile
from pathlib import Path

import trustme

from bench.far_link import FarLink
from bench.figures import Figure
from bench.long_sessions import MODELS, prompt_times
from tests.support.fake_llm import FakeLLM
from tests.support.raw import RawAgent

ROUND_TRIP_S = 0.040  # a nearby region's; across an ocean it is 100-200 ms
REQUESTS = 20  # prompts of one session, one model request each
SETTLED = 5  # the first ones left out: the session's first request opens its connection
OVER_S = 0.020  # the budget: the round trip, and this much (the agent's own time, the link's)


def measure(env: dict[str, str]) -> list[Figure]:
    authority = trustme.CA()
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(server)
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as tmp:
        trusted, workspace = Path(tmp) / "authority.pem", Path(tmp) / "workspace"
        authority.cert_pem.write_to_path(str(trusted))
        workspace.mkdir()
        for provider, model in MODELS.items():
            times, connections = _requests(env, workspace, trusted, server, model)
            how = (
                f"over TLS, through a link with a {ROUND_TRIP_S * 1000:g} ms round trip; median "
                f"of prompts {SETTLED + 1}-{REQUESTS} of one session, editor-observed time minus "
                f"the model server's own; {connections} connections opened through the link for "
                f"{REQUESTS} requests"
            )
            figures.append(
                Figure(
                    f"a model request across a {ROUND_TRIP_S * 1000:g} ms round trip ({provider})",
                    statistics.median(times[SETTLED:]) * 1000,
                    "ms",
                    round((ROUND_TRIP_S + OVER_S) * 1000),
                    how,
                )
            )
    return figures


def _requests(
    env: dict[str, str], workspace: Path, trusted: Path, server: ssl.SSLContext, model: str
) -> tuple[list[float], int]:
    """The agent's time of each prompt of one session, and the connections it opened."""
    with FakeLLM(tls=server) as fake, FarLink(_port(fake.url), ROUND_TRIP_S) as link:
        far = f"https://127.0.0.1:{link.port}"  # the agent is pointed across the link
        pointed = {
            name: value.replace(fake.url, far) for name, value in fake.environment(model).items()
        }
        run_env = {**env, **pointed, "SSL_CERT_FILE": str(trusted)}
        with RawAgent(run_env, check_schema=False) as agent:
            times = prompt_times(agent, fake, workspace, REQUESTS)
        return times, link.connections


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])
