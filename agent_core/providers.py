"""``[providers.<name>]``: the endpoints a model spec ``<name>:<model>`` reaches.

The built-in names keep their variables: ``anthropic`` (``ANTHROPIC_*``), ``openai`` and
``openai-chat`` (both ``OPENAI_*``), ``bedrock`` (the AWS variables and files), ``vertex``
(Google Cloud's), ``scripted``. Any other name is a named provider::

    [providers.work]
    api = "openai-chat"                 # or "anthropic", "openai", "bedrock", "vertex"
    base_url = "https://llm.example.com/v1"
    api_key_env = "WORK_LLM_KEY"        # or api_key = "..."
    headers = { "X-Team" = "tools" }
    models = ["qwen3-coder"]            # offered in the model picker

or a preset (``agent_core.presets``) with anything overridden: ``preset = "openrouter"``, or a
section named like the preset. A preset needs no section at all: ``openrouter:<model>`` works
with ``OPENROUTER_API_KEY`` set, ``ollama:<model>`` with nothing. Pure: the caller passes the
environment (only ``config.py`` reads it) and the parsed file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from agent_core.config_values import string, string_table, strings, table
from agent_core.errors import ConfigError
from agent_core.presets import PRESETS, Preset

APIS = ("anthropic", "openai", "openai-chat", "bedrock", "vertex")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
KEYS = {"api", "preset", "base_url", "api_key", "api_key_env", "headers", "models"}
PLATFORM_KEYS = {"region", "project", "profile"}


class ProviderSettings(NamedTuple):
    """One endpoint and how to reach it. Hashable: one SDK client per distinct value."""

    api_key: str | None = None
    base_url: str | None = None
    name: str = ""
    api: str = ""  # one of APIS, or "scripted"; "" for a name nothing defines
    headers: tuple[tuple[str, str], ...] = ()  # extra HTTP headers on every request
    key_variable: str | None = None  # where the key is looked for, named in messages
    models: tuple[str, ...] = ()  # offered in the model picker
    local: bool = False  # a local server: no key needed
    region: str | None = None  # bedrock, vertex
    project: str | None = None  # vertex
    profile: str | None = None  # bedrock: the AWS profile

    def reachable(self) -> bool:
        """Whether a model of it can be tried: the cloud platforms and local servers find their
        own credentials, a Chat Completions server with a URL may need none, others a key."""
        if self.api in ("scripted", "bedrock", "vertex") or self.local or self.api_key:
            return True
        keyless = self.key_variable is None or self.name == "openai-chat"  # OPENAI_API_KEY: maybe
        return self.api == "openai-chat" and bool(self.base_url) and keyless

    def missing_key(self) -> str:
        """What to do about a missing key, in one sentence."""
        where = f"api_key under [providers.{self.name}] in config.toml"
        if self.key_variable:
            return f"{self.name} needs an API key: set {self.key_variable} or {where}"
        return f"{self.name} needs an API key: set {where}"


# The built-in providers reached with an API key, which ``heron login`` saves and ``logout``
# removes (``agent_core.config_keys``): name -> key and URL variables; the API is the name.
PROVIDER_ENV: dict[str, tuple[str, str]] = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "openai-chat": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
}
BUILT_IN: dict[str, tuple[str, str | None, str | None]] = {  # name: api, key and URL variables
    **{name: (name, key, url) for name, (key, url) in PROVIDER_ENV.items()},
    "bedrock": ("bedrock", "AWS_BEARER_TOKEN_BEDROCK", "ANTHROPIC_BEDROCK_BASE_URL"),
    "vertex": ("vertex", None, "ANTHROPIC_VERTEX_BASE_URL"),
    "scripted": ("scripted", None, None),
}


def read_providers(env: Mapping[str, str], file: dict[str, Any]) -> dict[str, ProviderSettings]:
    """Every provider the environment and ``config.toml`` define: the built-in names, the named
    sections, and the presets whose key variable is set."""
    sections = table(file, "providers", "[providers]")
    providers = {name: _built_in(name, env, sections) for name in BUILT_IN}
    for name in sections:
        if name not in BUILT_IN:
            providers[name] = _named(name, env, table(sections, name, f"[providers.{name}]"))
    for name, preset in PRESETS.items():
        if name not in providers and preset.key_variable and env.get(preset.key_variable):
            providers[name] = from_preset(name, preset, env)
    return providers


def from_preset(name: str, preset: Preset, env: Mapping[str, str]) -> ProviderSettings:
    """A preset as it is with no section: its endpoint, its key from its usual variable."""
    url = preset.base_url
    if preset.url_variable and (value := env.get(preset.url_variable)):
        url = preset.url_from(value)
    key = env.get(preset.key_variable) if preset.key_variable else None
    return ProviderSettings(
        key or None, url, name, preset.api, preset.headers, preset.key_variable,
        local=preset.key_variable is None,
    )  # fmt: skip


def _built_in(name: str, env: Mapping[str, str], sections: dict[str, Any]) -> ProviderSettings:
    api, key_var, url_var = BUILT_IN[name]
    label = f"[providers.{name}]"
    section = table(sections, name, label)
    unknown = set(section) - {"api_key", "base_url", "headers", "models"} - _platform_keys(api)
    if unknown:
        raise ConfigError(
            f"config.toml: {label} is a built-in provider; it takes no {', '.join(sorted(unknown))}"
            " (name your own provider to choose an api or a preset)"
        )
    region = string(section, "region")
    if api == "bedrock":
        region = env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or region
    elif api == "vertex":
        region = env.get("CLOUD_ML_REGION") or env.get("GOOGLE_CLOUD_LOCATION") or region
    project = env.get("ANTHROPIC_VERTEX_PROJECT_ID") or env.get("GOOGLE_CLOUD_PROJECT")
    return ProviderSettings(
        api_key=(env.get(key_var) if key_var else None) or string(section, "api_key"),
        base_url=(env.get(url_var) if url_var else None) or string(section, "base_url"),
        name=name,
        api=api,
        headers=_headers(section, label),
        key_variable=key_var,
        models=tuple(strings(section, "models")),
        region=region,
        project=(project if api == "vertex" else None) or string(section, "project"),
        profile=(env.get("AWS_PROFILE") if api == "bedrock" else None)
        or string(section, "profile"),
    )


def _named(name: str, env: Mapping[str, str], section: dict[str, Any]) -> ProviderSettings:
    label = f"[providers.{name}]"
    if not NAME.fullmatch(name):
        raise ConfigError(
            f"config.toml: {label}: a provider name is letters, digits, '-', '_' and '.'"
        )
    preset_name = string(section, "preset") or (name if name in PRESETS else None)
    api = string(section, "api")
    if preset_name is not None and preset_name not in PRESETS:
        raise ConfigError(
            f"config.toml: {label} preset must be one of {', '.join(PRESETS)}, not {preset_name!r}"
        )
    if api is None and preset_name is None:
        raise ConfigError(
            f"config.toml: {label} needs api = one of {', '.join(APIS)}, "
            f"or preset = one of {', '.join(PRESETS)}"
        )
    if api is not None and api not in APIS:
        raise ConfigError(f"config.toml: {label} api must be one of {', '.join(APIS)}, not {api!r}")
    base = (
        from_preset(name, PRESETS[preset_name], env)
        if preset_name
        else ProviderSettings(name=name, api=api or "")
    )
    unknown = set(section) - KEYS - _platform_keys(api or base.api)
    if unknown:
        raise ConfigError(f"config.toml: {label} has unknown keys: {', '.join(sorted(unknown))}")
    key, key_env = string(section, "api_key"), string(section, "api_key_env")
    if key is not None and key_env is not None:
        raise ConfigError(f"config.toml: {label} takes api_key or api_key_env, not both")
    if key_env is not None:
        key = env.get(key_env) or None
    headers = dict(base.headers) | dict(_headers(section, label))
    return base._replace(
        api=api or base.api,
        api_key=key or (None if key_env else base.api_key),
        base_url=string(section, "base_url") or base.base_url,
        headers=tuple(headers.items()),
        key_variable=key_env or base.key_variable,
        models=tuple(strings(section, "models")),
        region=string(section, "region"),
        project=string(section, "project"),
        profile=string(section, "profile"),
    )


def _platform_keys(api: str) -> set[str]:
    return {"bedrock": {"region", "profile"}, "vertex": {"region", "project"}}.get(api, set())


def _headers(section: dict[str, Any], label: str) -> tuple[tuple[str, str], ...]:
    return tuple(string_table(section, "headers", f"{label} headers").items())


def unconfigured(name: str) -> ProviderSettings:
    """A provider nothing names (a keyed preset with its variable set is named already): a
    local server's preset as it is, a keyed one without its key, else one nothing defines."""
    preset = PRESETS.get(name)
    return from_preset(name, preset, {}) if preset else ProviderSettings(name=name)
