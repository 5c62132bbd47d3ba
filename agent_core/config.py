"""The one Settings object: environment variables over ``$HERON_HOME/config.toml`` over defaults.

This is the only module that reads the environment or config files. It is plain stdlib on
purpose: ``pydantic-settings`` costs ~120 ms to import, more than the whole budget for answering
``initialize``, and the handful of settings here need no more than ``tomllib``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from agent_core.errors import ConfigError

PROVIDER_ENV = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "openai-chat": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
}
MODES = ("ask", "accept-edits", "plan", "full-access")


@dataclass(frozen=True, slots=True)
class ProviderSettings:
    api_key: str | None = None
    base_url: str | None = None


@dataclass(frozen=True, slots=True)
class Settings:
    home: Path
    model: str | None = None  # "<provider>:<model>"
    default_mode: str = "ask"
    trace: bool = False
    log_level: str = "INFO"
    providers: Mapping[str, ProviderSettings] = field(default_factory=dict[str, ProviderSettings])

    @property
    def config_file(self) -> Path:
        return self.home / "config.toml"

    @property
    def log_dir(self) -> Path:
        return self.home / "logs"

    @property
    def sessions_db(self) -> Path:
        return self.home / "sessions.db"

    def provider(self, name: str) -> ProviderSettings:
        return self.providers.get(name, ProviderSettings())


def load_settings(
    environ: Mapping[str, str] | None = None, *, model: str | None = None, read_file: bool = True
) -> Settings:
    """Read the environment (``os.environ`` unless given) and ``config.toml`` under the home.

    ``model`` (from the command line) wins over ``HERON_MODEL`` and the file. Raises
    ``ConfigError``; ``read_file=False`` gives the settings without the file.
    """
    env = os.environ if environ is None else environ
    home = Path(env.get("HERON_HOME") or Path.home() / ".heron").expanduser()
    file = _read_config_file(home / "config.toml") if read_file else {}
    mode = env.get("HERON_MODE") or _string(file, "default_mode") or "ask"
    if mode not in MODES:
        raise ConfigError(f"unknown mode {mode!r}: use one of {', '.join(MODES)}")
    return Settings(
        home=home,
        model=model or env.get("HERON_MODEL") or _string(file, "model"),
        default_mode=mode,
        trace=env.get("HERON_TRACE", "") not in ("", "0", "false", "no"),
        log_level=(env.get("HERON_LOG_LEVEL") or _string(file, "log_level") or "INFO").upper(),
        providers=_providers(env, file),
    )


def _read_config_file(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    import tomllib  # only when there is a file: keeps start-up lean

    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from exc
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from exc


def _providers(env: Mapping[str, str], file: dict[str, Any]) -> dict[str, ProviderSettings]:
    table = _table(file, "providers", "[providers]")
    providers: dict[str, ProviderSettings] = {}
    for name, (key_var, url_var) in PROVIDER_ENV.items():
        section = _table(table, name, f"[providers.{name}]")
        providers[name] = ProviderSettings(
            api_key=env.get(key_var) or _string(section, "api_key"),
            base_url=env.get(url_var) or _string(section, "base_url"),
        )
    return providers


def _table(parent: dict[str, Any], key: str, label: str) -> dict[str, Any]:
    value = parent.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"config.toml: {label} must be a table")
    return cast(dict[str, Any], value)


def _string(table: dict[str, Any], key: str) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConfigError(f"config.toml: {key} must be a string, not {type(value).__name__}")
    return value
