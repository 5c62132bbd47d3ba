"""Web search APIs, each as two pure translations (a query to a request, a response to
results), and the one HTTP call they share.

- Brave: ``GET /res/v1/web/search``, the key in ``X-Subscription-Token``;
- SearXNG (self-hosted, no key): ``GET /search?format=json`` (the instance must enable JSON);
- Tavily: ``POST /search`` with JSON, the key as a bearer token;
- Exa: ``POST /search`` with JSON, the key in ``x-api-key``.

The backend's address is the user's own choice (``[web.search] base_url``; often a SearXNG on
localhost), so unlike ``web_fetch`` it is not held to public addresses. Keys never appear in
what the model or the logs see: errors name the backend and the HTTP status only.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from typing import Any, Literal, cast

from msgspec import Struct, field

from agent_core.errors import ToolError
from agent_core.files.json_text import json_object
from agent_core.web.settings import SearchSettings

SNIPPET_CHARS = 400
HIGHLIGHT = re.compile(r"</?(strong|b|em)>")  # Brave marks the query's words in snippets


class Result(Struct, frozen=True):
    title: str
    url: str
    snippet: str


class Request(Struct, frozen=True):
    method: Literal["GET", "POST"]
    url: str
    params: Mapping[str, str] = field(default_factory=dict[str, str])
    headers: Mapping[str, str] = field(default_factory=dict[str, str])
    body: Mapping[str, Any] | None = None  # sent as JSON


class Backend(Struct, frozen=True):
    label: str
    default_url: str | None  # None: the user must say where (SearXNG)
    needs_key: bool
    request: Callable[[str, int, str, str], Request]  # query, count, base URL, key
    results: Callable[[Any], list[Result]]  # the response's JSON


def brave_request(query: str, count: int, base: str, key: str) -> Request:
    return Request(
        "GET",
        f"{base}/res/v1/web/search",
        {"q": query, "count": str(min(count, 20))},
        {"Accept": "application/json", "X-Subscription-Token": key},
    )


def brave_results(data: Any) -> list[Result]:
    web = json_object(json_object(data).get("web"))
    return [
        Result(_text(r.get("title")), _text(r.get("url")), _text(r.get("description")))
        for r in _objects(web.get("results"))
    ]


def searxng_request(query: str, count: int, base: str, key: str) -> Request:
    return Request("GET", f"{base}/search", {"q": query, "format": "json"})


def searxng_results(data: Any) -> list[Result]:
    return [
        Result(_text(r.get("title")), _text(r.get("url")), _text(r.get("content")))
        for r in _objects(json_object(data).get("results"))
    ]


def tavily_request(query: str, count: int, base: str, key: str) -> Request:
    return Request(
        "POST",
        f"{base}/search",
        headers={"Authorization": f"Bearer {key}"},
        body={"query": query, "max_results": min(count, 20), "search_depth": "basic"},
    )


def tavily_results(data: Any) -> list[Result]:
    return searxng_results(data)  # the same shape: results of title, url, content


def exa_request(query: str, count: int, base: str, key: str) -> Request:
    return Request(
        "POST",
        f"{base}/search",
        headers={"x-api-key": key},
        body={
            "query": query,
            "numResults": min(count, 25),
            "contents": {"text": {"maxCharacters": SNIPPET_CHARS}},
        },
    )


def exa_results(data: Any) -> list[Result]:
    return [
        Result(_text(r.get("title")), _text(r.get("url")), _text(r.get("text")))
        for r in _objects(json_object(data).get("results"))
    ]


BACKENDS: dict[str, Backend] = {
    "brave": Backend(
        "Brave Search", "https://api.search.brave.com", True, brave_request, brave_results
    ),
    "searxng": Backend("SearXNG", None, False, searxng_request, searxng_results),
    "tavily": Backend("Tavily", "https://api.tavily.com", True, tavily_request, tavily_results),
    "exa": Backend("Exa", "https://api.exa.ai", True, exa_request, exa_results),
}


def unavailable(settings: SearchSettings) -> str | None:
    """Why searching is off, in words the user can act on; None when it is configured."""
    if settings.backend is None:
        return (
            "Web search is off: no search backend is configured. The user can set one in "
            'config.toml: [web.search] backend = "brave", "tavily", "exa" (with api_key or '
            'api_key_env) or "searxng" (with base_url).'
        )
    backend = BACKENDS[settings.backend]
    if backend.needs_key and not settings.api_key:
        return (
            f"Web search is off: {backend.label} needs an API key ([web.search] api_key or "
            "api_key_env in config.toml)."
        )
    if not (settings.base_url or backend.default_url):
        return f"Web search is off: {backend.label} needs [web.search] base_url in config.toml."
    return None


async def search(settings: SearchSettings, query: str, count: int, seconds: float) -> list[Result]:
    """The configured backend's results for ``query``; raises ``ToolError``."""
    import httpx2

    if why := unavailable(settings):
        raise ToolError(why)
    backend = BACKENDS[settings.backend or ""]
    base = (settings.base_url or backend.default_url or "").rstrip("/")
    request = backend.request(query, count, base, settings.api_key or "")
    try:
        async with httpx2.AsyncClient(trust_env=False, timeout=seconds) as client:
            response = await client.request(
                request.method,
                request.url,
                params=dict(request.params),
                headers={"User-Agent": "Heron", **request.headers},
                json=dict(request.body) if request.body is not None else None,
            )
    except httpx2.TimeoutException:
        raise ToolError(f"{backend.label} did not answer within {seconds:g} s.") from None
    except httpx2.HTTPError as exc:
        raise ToolError(f"{backend.label} could not be reached: {type(exc).__name__}.") from None
    if response.status_code in (401, 403):
        raise ToolError(f"{backend.label} refused the API key (HTTP {response.status_code}).")
    if response.status_code == 429:
        raise ToolError(f"{backend.label} is rate limiting searches (HTTP 429); try later.")
    if response.status_code >= 400:
        raise ToolError(f"{backend.label} answered HTTP {response.status_code}.")
    try:
        data = response.json()
    except ValueError:
        raise ToolError(f"{backend.label} did not answer with JSON.") from None
    return [r for r in backend.results(data) if r.url][:count]


def _objects(value: Any) -> list[dict[str, Any]]:
    items = cast(list[Any], value) if isinstance(value, list) else []
    return [cast(dict[str, Any], v) for v in items if isinstance(v, dict)]


def _text(value: Any) -> str:
    text = html.unescape(HIGHLIGHT.sub("", value)) if isinstance(value, str) else ""
    return " ".join(text.split())[:SNIPPET_CHARS]
