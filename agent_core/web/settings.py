"""``[web]`` in config.toml: read by ``agent_core.config``, obeyed by the web tools. Its own
module because config is on the start-up path and must not load the HTTP client."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from agent_core.config_values import choice, number, string, strings, table
from agent_core.errors import ConfigError

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


def read_web(section: dict[str, Any], env: Mapping[str, str]) -> WebSettings:
    """``allow_private`` is true, false, or a list of hosts and networks; the search key comes
    from ``api_key``, else the variable ``api_key_env`` names (or the backend's own), looked up
    in ``env``."""
    defaults, private, hosts = WebSettings(), section.get("allow_private", False), ()
    if isinstance(private, list):
        private, hosts = False, tuple(strings(section, "allow_private"))
    if not isinstance(private, bool):
        raise ConfigError("config.toml: [web] allow_private must be true, false or a list")
    search = table(section, "search", "[web.search]")
    backend = choice(search, "backend", SEARCH_BACKENDS)
    variable = string(search, "api_key_env") or KEY_VARIABLES.get(backend or "")
    return WebSettings(
        allow_private=private,
        allowed_hosts=hosts,
        max_bytes=int(number(section, "max_bytes", defaults.max_bytes, minimum=1000)),
        max_chars=int(number(section, "max_chars", defaults.max_chars, minimum=1000)),
        timeout=number(section, "timeout", defaults.timeout, minimum=0.1),
        max_redirects=int(number(section, "max_redirects", defaults.max_redirects, minimum=0)),
        search=SearchSettings(
            backend,
            string(search, "api_key") or (env.get(variable) if variable else None),
            string(search, "base_url"),
            int(number(search, "max_results", defaults.search.max_results, minimum=1)),
        ),
    )
