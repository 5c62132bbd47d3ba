"""The provider keys in ``config.toml``: saved by ``heron login``, taken out by ACP ``logout``.

Both edit the file as text, one line at a time, so the user's comments, order and other
settings stay exactly as they were; the result is parsed before it replaces the file
(atomically, readable by the user only), and a file written in a form these edits do not
handle (inline tables, dotted keys, multi-line strings) is left alone with a message saying
what to change by hand. Reading settings stays in ``config.py``.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
from pathlib import Path
from typing import Any, cast

from agent_core.errors import ConfigError

DEFAULT_MODELS = {
    "anthropic": "anthropic:claude-sonnet-4-5",
    "openai": "openai:gpt-5",
    "openai-chat": "openai-chat:gpt-4.1",
}
_SECTION = r'^\s*\[\s*providers\s*\.\s*("?){name}\1\s*\]\s*(#.*)?$'
_API_KEY = re.compile(r"\s*api_key\s*=")


def store_api_key(home: Path, provider: str, key: str) -> Path:
    """Write ``[providers.<provider>] api_key`` (and a ``model`` if none is set) into
    ``config.toml``; everything else in the file stays as it was."""
    file = home / "config.toml"
    text = _read(file)
    current = _parse(text, file, "fix it first")
    updated = _with_api_key(text, provider, key, add_model="model" not in current)
    written = _providers(_parse_or_none(updated)).get(provider, {}).get("api_key")
    if written != key:
        raise ConfigError(
            f"cannot add the key to {file} without rewriting how it is written; add it by hand "
            f'under [providers.{provider}] as api_key = "..."'
        )
    write_config(file, updated)
    return file


def remove_api_keys(home: Path) -> tuple[str, ...]:
    """Take every ``api_key`` out of the ``[providers.<name>]`` sections of ``config.toml``
    (what ``heron login`` saved); the providers whose key went, in the file's order."""
    file = home / "config.toml"
    if not file.exists():
        return ()
    text = _read(file)
    current = _parse(text, file, "fix it first")
    keyed = tuple(name for name, section in _providers(current).items() if "api_key" in section)
    if not keyed:
        return ()
    updated = _without_api_keys(text)
    expected = copy.deepcopy(current)
    for name in keyed:
        del expected["providers"][name]["api_key"]
    if _parse_or_none(updated) != expected:  # the keys went, and nothing else
        raise ConfigError(
            f"cannot take the API keys out of {file} without rewriting how it is written; "
            "delete the api_key lines under [providers.*] by hand"
        )
    write_config(file, updated)
    return keyed


def _with_api_key(text: str, provider: str, key: str, *, add_model: bool) -> str:
    header = re.compile(_SECTION.format(name=re.escape(provider)))
    line = f"api_key = {_toml_string(key)}"
    lines = text.splitlines()
    start = next((i + 1 for i, raw in enumerate(lines) if header.match(raw)), None)
    if start is None:
        lines += (
            ["", f"[providers.{provider}]", line] if lines else [f"[providers.{provider}]", line]
        )
    else:
        end = next(
            (i for i in range(start, len(lines)) if lines[i].lstrip().startswith("[")), len(lines)
        )
        existing = [i for i in range(start, end) if _API_KEY.match(lines[i])]
        if existing:
            lines[existing[0]] = line
        else:
            lines.insert(start, line)
    if add_model:
        lines.insert(0, f"model = {_toml_string(DEFAULT_MODELS[provider])}")
    return "\n".join(lines) + "\n"


def _without_api_keys(text: str) -> str:
    """``text`` minus the ``api_key = ...`` lines of its ``[providers.<name>]`` sections."""
    header = re.compile(_SECTION.format(name=r"[A-Za-z0-9_-]+"))
    kept: list[str] = []
    in_providers = False
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("["):
            in_providers = header.match(line) is not None
        if not (in_providers and _API_KEY.match(line)):
            kept.append(line)
    return "".join(kept)


def _providers(parsed: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """The ``[providers.<name>]`` tables of a parsed file (only the ones that are tables)."""
    table = (parsed or {}).get("providers")
    if not isinstance(table, dict):
        return {}
    sections = cast(dict[str, Any], table)
    return {k: cast(dict[str, Any], v) for k, v in sections.items() if isinstance(v, dict)}


def _parse(text: str, file: Path, then: str) -> dict[str, Any]:
    import tomllib  # `heron login` and `logout` only: kept off the server's start-up path

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file} is not valid TOML ({exc}); {then}") from exc


def _parse_or_none(text: str) -> dict[str, Any] | None:
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def write_config(file: Path, text: str) -> None:
    """``file`` becomes ``text`` at once (a reader sees the old file or the new one), mode 0600;
    when it cannot, ``ConfigError`` says so and nothing changed (no half-written file is left)."""
    import tempfile

    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=file.parent, prefix=".config.")  # created 0600
    except OSError as exc:
        raise ConfigError(f"cannot write {file}: {exc.strerror or exc}; nothing changed") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        Path(temp).replace(file)
    except OSError as exc:
        with contextlib.suppress(OSError):
            Path(temp).unlink()
        raise ConfigError(f"cannot write {file}: {exc.strerror or exc}; nothing changed") from exc


def _read(file: Path) -> str:
    try:
        return file.read_text(encoding="utf-8") if file.exists() else ""
    except OSError as exc:
        raise ConfigError(f"cannot read {file}: {exc.strerror or exc}") from exc


def _toml_string(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string
