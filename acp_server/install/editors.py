"""Where each editor keeps the entry that starts Heron, and what that entry is."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from msgspec import Struct

from agent_core.config import user_config_home

AGENT_NAME = "Heron"


class Editor(Struct, frozen=True):
    name: str  # as typed: `heron setup zed`
    title: str
    settings: Path
    key: tuple[str, ...]  # where the entry goes in the settings object
    entry: Callable[[Path], Any]  # the entry, given the absolute path of `heron`
    next_step: str

    def command_of(self, value: Any) -> str | None:
        """The command an existing entry starts."""
        if isinstance(value, str):
            return value
        command = cast(dict[str, Any], value).get("command") if isinstance(value, dict) else None
        return command if isinstance(command, str) else None


def _zed(heron: Path) -> dict[str, Any]:
    return {
        "type": "custom",
        "command": str(heron),
        "args": ["acp"],
        "env": {},
        "default_mode": "ask",
    }


def _jetbrains(heron: Path) -> dict[str, Any]:
    return {"command": str(heron), "args": ["acp"], "env": {}}


def _vscode_settings() -> Path:
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "Code" / "User" / "settings.json"
    return user_config_home() / "Code" / "User" / "settings.json"


def editors() -> dict[str, Editor]:
    return {
        "zed": Editor(
            "zed",
            "Zed",
            user_config_home() / "zed" / "settings.json",
            ("agent_servers", AGENT_NAME),
            _zed,
            "Open Zed's agent panel, click +, and choose Heron.",
        ),
        "jetbrains": Editor(
            "jetbrains",
            "JetBrains IDEs",
            Path.home() / ".jetbrains" / "acp.json",
            ("agent_servers", AGENT_NAME),
            _jetbrains,
            "In the AI Assistant chat, pick Heron from the agent list (restart the IDE if absent).",
        ),
        "vscode": Editor(
            "vscode",
            "VS Code",
            _vscode_settings(),
            ("heron.path",),
            str,
            "Install the extension (code --install-extension heron.vsix, built from "
            "editor-extensions/vscode), then run 'Heron: New Session'.",
        ),
    }


def installed_heron() -> Path | None:
    """The absolute path of the `heron` this Python runs, else the one on PATH."""
    beside = Path(sys.executable).parent / "heron"
    if beside.is_file():
        return beside.absolute()
    found = shutil.which("heron")
    return Path(found).absolute() if found else None
