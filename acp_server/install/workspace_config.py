"""A workspace's ``[execution.workspaces."<path>"]`` table in ``config.toml``, written by
``heron setup container`` and ``heron setup local``.

The file is edited as text, one line at a time, so the user's comments, order and other settings
stay exactly as they were. The result is parsed and compared with what was meant (that table
changed, nothing else) before it replaces the file, atomically, after a backup; a file written in
a form these edits do not handle (an inline table, dotted keys) is left alone with a message
saying what to add by hand.
"""

from __future__ import annotations

import contextlib
import copy
import json
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from agent_core.config_keys import write_config
from agent_core.errors import ConfigError

KEYS = ("backend", "engine", "image", "dockerfile")  # the keys these commands own, in order


def header(workspace: Path) -> str:
    return f"[execution.workspaces.{_toml_string(str(workspace))}]"


def snippet(workspace: Path, values: Mapping[str, str | None]) -> str:
    """The table as it is written: for a message, or for the user to add by hand."""
    body = [f"{key} = {_toml_string(value)}" for key, value in values.items() if value is not None]
    return "\n".join([header(workspace), *body])


def table_of(parsed: Mapping[str, Any], workspace: Path) -> dict[str, Any] | None:
    """The workspace's table in a parsed file, or None."""
    node: Any = parsed
    for part in ("execution", "workspaces", str(workspace)):
        if not isinstance(node, dict):
            return None
        node = cast(dict[str, Any], node).get(part)
    return cast(dict[str, Any], node) if isinstance(node, dict) else None


def updated_text(text: str, workspace: Path, values: Mapping[str, str | None]) -> str:
    """``text`` with the workspace's table holding ``values`` (a None value: the key removed);
    ConfigError when the file is not TOML, or when the edit cannot be made line by line."""
    current = _parse(text)
    lines = text.splitlines()
    start = next((i + 1 for i, line in enumerate(lines) if _is_header(line, workspace)), None)
    if start is None:
        added = snippet(workspace, values).splitlines()
        lines += ["", *added] if lines and lines[-1].strip() else added
    else:
        end = next((i for i in range(start, len(lines)) if _opens_table(lines[i])), len(lines))
        body = lines[start:end]
        for key, value in values.items():
            at = next((i for i, line in enumerate(body) if _key_of(line) == key), None)
            line = None if value is None else f"{key} = {_toml_string(value)}"
            if at is not None and line is None:
                del body[at]
            elif at is not None and line is not None:
                body[at] = line
            elif line is not None:
                last = max((i + 1 for i, b in enumerate(body) if _key_of(b)), default=0)
                body.insert(last, line)
        lines[start:end] = body
    result = "\n".join(lines) + "\n"
    expected = copy.deepcopy(current)
    table = _table(expected, workspace)
    for key, value in values.items():
        if value is None:
            table.pop(key, None)
        else:
            table[key] = value
    if _parse_or_none(result) != expected:
        raise ConfigError("cannot write the table without rewriting how the file is written")
    return result


def replace(file: Path, text: str) -> None:
    """``file`` becomes ``text`` at once, as ``heron login`` writes it (``write_config``), keeping
    the mode the file had (0600 for a new one: config.toml can hold keys); ConfigError when it
    cannot."""
    try:
        mode = stat.S_IMODE(file.stat().st_mode) if file.exists() else 0o600
    except OSError as exc:
        raise ConfigError(f"cannot write {file}: {exc.strerror or exc}; nothing changed") from exc
    write_config(file, text)
    if mode != 0o600:
        with contextlib.suppress(OSError):
            file.chmod(mode)


def _is_header(line: str, workspace: Path) -> bool:
    """Whether ``line`` opens the workspace's table, however it is quoted or spaced."""
    if not _opens_table(line) or line.lstrip().startswith("[["):
        return False
    parsed = _parse_or_none(line + "\n")
    return parsed is not None and table_of(parsed, workspace) == {}


def _opens_table(line: str) -> bool:
    return line.lstrip().startswith("[")


def _key_of(line: str) -> str | None:
    """The bare key a ``key = value`` line sets, or None."""
    name, equals, _ = line.partition("=")
    name = name.strip().strip('"')
    return name if equals and name.replace("_", "").isalnum() else None


def _table(parsed: dict[str, Any], workspace: Path) -> dict[str, Any]:
    node = parsed
    for part in ("execution", "workspaces", str(workspace)):
        node = node.setdefault(part, {})
    return node


def _parse(text: str) -> dict[str, Any]:
    import tomllib  # the setup commands only: kept off the server's start-up path

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"it is not valid TOML ({exc})") from exc


def _parse_or_none(text: str) -> dict[str, Any] | None:
    try:
        return _parse(text)
    except ConfigError:
        return None


def _toml_string(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string
