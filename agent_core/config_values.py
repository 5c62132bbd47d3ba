"""Reading values out of ``config.toml``'s tables, each wrong type a ``ConfigError`` that names
the key and what it must be. Pure: the tables are parsed already."""

from __future__ import annotations

from typing import Any, cast

from agent_core.errors import ConfigError


def table(parent: dict[str, Any], key: str, label: str) -> dict[str, Any]:
    value = parent.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"config.toml: {label} must be a table")
    return cast(dict[str, Any], value)


def string_table(parent: dict[str, Any], key: str, label: str) -> dict[str, str]:
    values = table(parent, key, label)
    if not all(isinstance(v, str) for v in values.values()):
        raise ConfigError(f"config.toml: {label} values must be strings")
    return cast(dict[str, str], values)


def number(parent: dict[str, Any], key: str, default: Any, *, minimum: float) -> Any:
    value = parent.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < minimum:
        raise ConfigError(f"config.toml: {key} must be a number >= {minimum:g}, not {value!r}")
    return float(value)


def int_or_none(value: float | None) -> int | None:
    return None if value is None else int(value)


def strings(parent: dict[str, Any], key: str) -> list[str]:
    value = parent.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in cast(list[Any], value)):
        raise ConfigError(f"config.toml: {key} must be a list of strings")
    return cast(list[str], value)


def choice(parent: dict[str, Any], key: str, choices: tuple[str, ...]) -> str | None:
    value = string(parent, key)
    if value is not None and value not in choices:
        raise ConfigError(f"config.toml: {key} must be one of {', '.join(choices)}")
    return value


def string(parent: dict[str, Any], key: str) -> str | None:
    value = parent.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConfigError(f"config.toml: {key} must be a string, not {type(value).__name__}")
    return value
