"""The slash commands a session offers, as they are on disk now, and the update that announces
them. Light, and blocking: the server calls it in a worker thread (``handlers.commands``), the
front door directly for a ``session/load`` it answers (``handlers.load_at_once``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_core.context.commands import Commands, SlashCommand, find_commands

if TYPE_CHECKING:
    from agent_core.config import Settings
    from agent_core.skills.catalog import Catalog


def commands_on_disk(settings: Settings, cwd: Path) -> tuple[Catalog, Commands]:
    """The skills and commands on disk now, from the folders the settings name (read through
    ``safety/safe_open.py``: a FIFO where a template should be is left out, never waited on)."""
    from agent_core.skills.catalog import skills_on_disk

    catalog = skills_on_disk(settings.skills, cwd, settings.home)
    return catalog, find_commands(cwd, settings.home, catalog.skills)


def to_commands_update(commands: dict[str, SlashCommand]) -> dict[str, Any]:
    listed: list[dict[str, Any]] = []
    for command in commands.values():
        entry: dict[str, Any] = {"name": command.name, "description": command.description}
        if command.hint:
            entry["input"] = {"hint": command.hint}
        listed.append(entry)
    return {"sessionUpdate": "available_commands_update", "availableCommands": listed}
