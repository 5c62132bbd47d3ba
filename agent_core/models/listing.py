"""What each provider offers, from its models endpoint (Anthropic ``GET /v1/models``, the
OpenAI-compatible ``GET /models``), for the model picker.

The lists are kept in ``$HERON_HOME/models.json`` and are good for ``MAX_AGE``; ``refresh`` runs
in the background once a session is open (never on ``initialize`` or ``session/new``) and asks
again only for providers whose list is missing, old, or from another endpoint. A provider that
does not answer (a local server that is not running) is asked again after ``RETRY_AFTER``.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import anyio
from msgspec import Struct

from agent_core.files.atomic import write_atomically
from agent_core.files.json_text import json_object
from agent_core.providers import ProviderSettings

if TYPE_CHECKING:
    import httpx2

log = logging.getLogger(__name__)

MAX_AGE = 6 * 3600.0  # seconds a list is good for
RETRY_AFTER = 300.0  # seconds before a provider that did not answer is asked again
TIMEOUT = 10.0  # seconds for one provider's answer
ANTHROPIC_VERSION = "2023-06-01"
NOT_CHAT = ("embed", "tts", "whisper", "dall-e", "moderation", "davinci", "babbage", "transcribe",
            "realtime", "audio", "image", "search", "sora")  # fmt: skip

Fetch = Callable[[ProviderSettings], Awaitable[tuple[str, ...]]]


def models_url(provider: ProviderSettings) -> str:
    if provider.api == "anthropic":
        return (provider.base_url or "https://api.anthropic.com").rstrip("/") + "/v1/models"
    return (provider.base_url or "https://api.openai.com/v1").rstrip("/") + "/models"


def request_headers(provider: ProviderSettings) -> dict[str, str]:
    headers = dict(provider.headers)
    if provider.api == "anthropic":
        headers["anthropic-version"] = ANTHROPIC_VERSION
        if provider.api_key:
            headers["x-api-key"] = provider.api_key
    elif provider.api_key:
        headers["Authorization"] = f"Bearer {provider.api_key}"
    return headers


def parse_models(payload: Any) -> tuple[str, ...]:
    """The chat models' ids in a models endpoint's answer (``{"data": [{"id": …}, …]}`` in both
    formats; Ollama's own ``{"models": [{"name": …}]}`` too), embeddings, speech and images
    left out."""
    body = json_object(payload)
    items = body.get("data", body.get("models"))
    entries = cast(list[Any], items) if isinstance(items, list) else []
    ids: list[str] = []
    for entry in entries:
        if isinstance(entry, dict):
            model = cast(dict[str, Any], entry).get("id") or cast(dict[str, Any], entry).get("name")
            if isinstance(model, str) and model and not any(w in model for w in NOT_CHAT):
                ids.append(model)
    return tuple(dict.fromkeys(ids))


async def fetch_models(provider: ProviderSettings) -> tuple[str, ...]:
    """One provider's list (one page of up to 1000 models); raises on any failure."""
    query = {"limit": "1000"} if provider.api == "anthropic" else None
    # Made in a worker thread: the first import of the HTTP client and its TLS setup would stop
    # the event loop for tens of milliseconds (a session's first prompt may be under way).
    async with await anyio.to_thread.run_sync(_http_client) as client:
        response = await client.get(
            models_url(provider), headers=request_headers(provider), params=query
        )
        response.raise_for_status()
        return parse_models(response.json())


def _http_client() -> httpx2.AsyncClient:
    import httpx2

    from agent_core.models import tls

    return httpx2.AsyncClient(timeout=TIMEOUT, verify=tls.context())


class Listed(Struct, frozen=True):
    endpoint: str
    fetched: float  # time.time()
    models: tuple[str, ...]


class ModelLists:
    """The providers' model lists, shared by the sessions of the process."""

    def __init__(
        self,
        cache_file: Path,
        *,
        max_age: float = MAX_AGE,
        fetch: Fetch = fetch_models,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._file, self._max_age, self._fetch, self._clock = cache_file, max_age, fetch, clock
        self._lists: dict[str, Listed] = {}
        self._loaded = False
        self._failed: dict[str, float] = {}  # name -> when it last did not answer
        self._lock = anyio.Lock()

    def known(self, providers: Mapping[str, ProviderSettings]) -> dict[str, tuple[str, ...]]:
        """The lists known now for ``providers`` (from their own endpoint); never waits."""
        return {
            name: listed.models
            for name, provider in providers.items()
            if (listed := self._lists.get(name)) and listed.endpoint == models_url(provider)
        }

    async def refresh(self, providers: Mapping[str, ProviderSettings]) -> bool:
        """Read the cache file the first time, ask the providers whose list is due, all at
        once, and keep what they answer. Whether ``known(providers)`` changed."""
        async with self._lock:
            before = self.known(providers)
            if not self._loaded:
                self._lists.update(await anyio.to_thread.run_sync(_read, self._file))
                self._loaded = True
            due = {n: p for n, p in providers.items() if self._due(n, p)}
            answers: dict[str, tuple[str, ...]] = {}
            if due:
                async with anyio.create_task_group() as group:
                    for name, provider in due.items():
                        group.start_soon(self._ask, name, provider, answers)
            now = self._clock()
            for name, models in answers.items():
                self._lists[name] = Listed(models_url(due[name]), now, models)
            if answers:
                await anyio.to_thread.run_sync(_write, self._file, self._lists)
            return self.known(providers) != before

    def _due(self, name: str, provider: ProviderSettings) -> bool:
        now = self._clock()
        if now - self._failed.get(name, -RETRY_AFTER) < RETRY_AFTER:
            return False
        listed = self._lists.get(name)
        return (
            listed is None
            or listed.endpoint != models_url(provider)
            or now - listed.fetched > self._max_age
        )

    async def _ask(
        self, name: str, provider: ProviderSettings, answers: dict[str, tuple[str, ...]]
    ) -> None:
        try:
            with anyio.fail_after(TIMEOUT):
                answers[name] = await self._fetch(provider)
        except Exception as exc:  # noqa: BLE001 - any failure: no list from it this time
            self._failed[name] = self._clock()
            log.info("no model list from %s (%s): %s", name, models_url(provider), exc)


def _read(path: Path) -> dict[str, Listed]:
    try:
        raw: Any = json.loads(path.read_text(encoding="utf-8"))
        entries = cast(dict[str, dict[str, Any]], raw["providers"])
        return {
            name: Listed(str(e["endpoint"]), float(e["fetched"]), tuple(map(str, e["models"])))
            for name, e in entries.items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}  # no cache, or one to write again


def _write(path: Path, lists: Mapping[str, Listed]) -> None:
    entries = {
        name: {"endpoint": e.endpoint, "fetched": e.fetched, "models": list(e.models)}
        for name, e in lists.items()
    }
    try:
        write_atomically(path, json.dumps({"version": 1, "providers": entries}).encode("utf-8"))
    except OSError as exc:
        log.info("cannot keep the model lists in %s: %s", path, exc)
