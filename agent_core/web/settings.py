"""``[web]`` in config.toml: read by ``agent_core.config``, obeyed by the web tools. Its own
module because config is on the start-up path and must not load the HTTP client."""

from __future__ import annotations

from typing import NamedTuple

SEARCH_BACKENDS = ("brave", "searxng", "tavily", "exa")


class SearchSettings(NamedTuple):
    """``[web.search]``: which search API ``web_search`` calls; none configured: it is off."""

    backend: str | None = None  # one of SEARCH_BACKENDS
    api_key: str | None = None  # never shown in logs or reprs
    base_url: str | None = None  # the API's address, when not the public one (SearXNG: always)
    max_results: int = 8

    def __repr__(self) -> str:  # without the key
        return (
            f"SearchSettings(backend={self.backend!r}, base_url={self.base_url!r}, "
            f"max_results={self.max_results!r})"
        )


class WebSettings(NamedTuple):
    """``[web]``: what ``web_fetch`` may reach and how much it reads."""

    allow_private: bool = False  # true: private, loopback and link-local addresses too
    allowed_hosts: tuple[str, ...] = ()  # or only these: host names, addresses, networks (CIDR)
    max_bytes: int = 5_000_000  # read from one response at most; the rest is never downloaded
    max_chars: int = 40_000  # of Markdown the model gets per call (``offset`` reads on)
    timeout: float = 30.0  # seconds for one fetch, redirects included
    max_redirects: int = 5
    search: SearchSettings = SearchSettings()


# The variable a backend's key is read from when config.toml names none (``api_key_env``).
KEY_VARIABLES = {"brave": "BRAVE_API_KEY", "tavily": "TAVILY_API_KEY", "exa": "EXA_API_KEY"}
