"""Remembered "always" answers, per workspace, in ``$HERON_HOME/permissions.json``.

The file maps a workspace root to what the user always allows or rejects there: command prefixes
(``allow_commands``, ``reject_commands``) and MCP tools (``allow_tools``, ``reject_tools``).
It is re-read on every check, so an answer given in one editor window applies in the others, and
written atomically, so a crash never leaves half a file.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any, cast

from agent_core.approvals import RuleCategory

log = logging.getLogger("heron.permissions")


class JsonRuleStore:
    def __init__(self, file: Path, workspace: Path) -> None:
        self._file = file
        self._workspace = str(workspace)

    def allowed(self, category: RuleCategory = "commands") -> frozenset[str]:
        return frozenset(self._entry().get(f"allow_{category}", []))

    def rejected(self, category: RuleCategory = "commands") -> frozenset[str]:
        return frozenset(self._entry().get(f"reject_{category}", []))

    def remember(self, prefix: str, *, allow: bool, category: RuleCategory = "commands") -> None:
        data = self._read()
        entry = data.setdefault(self._workspace, {})
        keep, drop = (f"allow_{category}", f"reject_{category}")[:: 1 if allow else -1]
        entry[keep] = sorted({*entry.get(keep, []), prefix})
        entry[drop] = [p for p in entry.get(drop, []) if p != prefix]
        self._write(data)

    def _entry(self) -> dict[str, list[str]]:
        return self._read().get(self._workspace, {})

    def _read(self) -> dict[str, dict[str, list[str]]]:
        try:
            data: Any = json.loads(self._file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("ignoring unreadable %s: %s", self._file, exc)
            return {}
        return cast(dict[str, dict[str, list[str]]], data) if isinstance(data, dict) else {}

    def _write(self, data: dict[str, dict[str, list[str]]]) -> None:
        self._file.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=self._file.parent, prefix=".permissions.")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2, sort_keys=True)
        Path(temp).replace(self._file)
