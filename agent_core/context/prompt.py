"""The system prompt, assembled once per session and frozen for it."""

from __future__ import annotations

import platform
from datetime import date
from pathlib import Path

IDENTITY = (
    "You are Heron, a coding agent working inside the user's editor. You help with software "
    "engineering tasks in the user's workspace: read before you change, make focused edits, "
    "and explain briefly what you did."
)


def build_system_prompt(cwd: Path, additional_directories: tuple[Path, ...], today: date) -> str:
    roots = "\n".join(f"- {p}" for p in additional_directories) or "- (none)"
    return (
        f"{IDENTITY}\n\n"
        "# Environment\n"
        f"Workspace root: {cwd}\n"
        f"Additional directories:\n{roots}\n"
        f"Operating system: {platform.system()} {platform.release()}\n"
        f"Today's date: {today.isoformat()}\n"
    )
