"""Remembered "always" answers, per workspace, in ``$HERON_HOME/permissions.json``.

The file maps a workspace root to what the user always allows or rejects there: command prefixes
(``allow_commands``, ``reject_commands``), MCP tools (``allow_tools``, ``reject_tools``), web
hosts or search backends (``allow_web``, ``reject_web``), and memory writes (``allow_memory`` or
``reject_memory`` holding ``"writes"``: the memory is the user's, but whether a workspace's
sessions may write it without asking is answered per workspace, like the rest).
It is re-read on every check, so an answer given in one editor window applies in the others, and
written atomically, so a crash never leaves half a file. An answer that cannot be written (a full
disk, a ``$HERON_HOME`` that cannot be written) still holds for this store's session, and
``remember`` says why it was not saved.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, cast

from agent_core.approval.permissions import RuleCategory
from agent_core.files.atomic import write_atomically

log = logging.getLogger("heron.permissions")


class JsonRuleStore:
    def __init__(self, file: Path, workspace: Path) -> None:
        self._file = file
        self._workspace = str(workspace)
        self._unsaved: dict[str, bool] = {}  # "<category>:<prefix>" -> allow, not in the file
        self._complained: str | None = None  # the last problem reading the file, said once

    def allowed(self, category: RuleCategory = "commands") -> frozenset[str]:
        return self._listed(category, allow=True)

    def rejected(self, category: RuleCategory = "commands") -> frozenset[str]:
        return self._listed(category, allow=False)

    def remember(
        self, prefix: str, *, allow: bool, category: RuleCategory = "commands"
    ) -> str | None:
        """Keep the answer for the workspace: None once it is saved, else why it is not (it
        then holds for this session only)."""
        data = self._read()
        entry = data.setdefault(self._workspace, {})
        keep, drop = (f"allow_{category}", f"reject_{category}")[:: 1 if allow else -1]
        entry[keep] = sorted({*entry.get(keep, []), prefix})
        entry[drop] = [p for p in entry.get(drop, []) if p != prefix]
        try:
            self._write(data)
        except OSError as exc:
            self._unsaved[f"{category}:{prefix}"] = allow
            why = f"{exc.filename or self._file}: {exc.strerror or exc}"
            log.warning("cannot save a remembered answer in %s: %s", self._file, why)
            return why
        self._unsaved.pop(f"{category}:{prefix}", None)
        return None

    def _listed(self, category: RuleCategory, *, allow: bool) -> frozenset[str]:
        key = f"allow_{category}" if allow else f"reject_{category}"
        found = set(self._entry().get(key, []))
        for name, allowed in self._unsaved.items():
            kind, _, prefix = name.partition(":")
            if kind == category:
                (found.add if allowed == allow else found.discard)(prefix)
        return frozenset(found)

    def _entry(self) -> dict[str, list[str]]:
        return self._read().get(self._workspace, {})

    def _read(self) -> dict[str, dict[str, list[str]]]:
        try:
            data: Any = json.loads(self._file.read_text(encoding="utf-8"))
        except (FileNotFoundError, NotADirectoryError):  # none yet, or no $HERON_HOME folder
            return {}
        except (OSError, ValueError) as exc:
            if str(exc) != self._complained:  # once, not on every check
                self._complained = str(exc)
                log.warning("ignoring unreadable %s: %s", self._file, exc)
            return {}
        return cast(dict[str, dict[str, list[str]]], data) if isinstance(data, dict) else {}

    def _write(self, data: dict[str, dict[str, list[str]]]) -> None:
        text = json.dumps(data, indent=2, sort_keys=True)
        write_atomically(self._file, text.encode("utf-8"))  # a full disk leaves no half file
