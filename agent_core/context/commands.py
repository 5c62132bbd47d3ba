"""Slash commands: Heron's own, the project's and user's prompt templates, and the skills.

A template is a Markdown file in ``.heron/commands/`` (the workspace's) or
``$HERON_HOME/commands/`` (the user's; the workspace wins on a clash). Optional first lines
``description: ...`` and ``argument-hint: ...``; the rest is the prompt, where ``$ARGUMENTS``
stands for whatever follows the command. Every skill (``agent_core/skills``) is a command too,
unless a built-in command or a template has its name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_core.skills.catalog import Skill

BUILTINS: dict[str, tuple[str, str | None]] = {
    "compact": ("Shorten the conversation now to save context", None),
    "init": ("Look at the project and write an AGENTS.md for coding agents", None),
    "model": ("Switch the model", "provider:model"),
    "mode": ("Switch the approval mode", "ask | accept-edits | plan | full-access"),
    "reload": ("Read the project instructions (AGENTS.md and kin) again", None),
    "cost": ("Tokens in context and cost so far", None),
    "memory": ("Show what the agent remembers across sessions, and where", None),
    "undo": ("Restore the files the last turn changed, after showing what changes", None),
    "checkpoints": ("List the checkpoints taken before each turn's changes", None),
    "restore": ("Restore the workspace to before turn n's changes", "n"),
    "help": ("List the commands", None),
}
INIT_PROMPT = (
    "Look at this project before writing anything: list its files, read the README and the build "
    "or package files, and skim a few central modules. Then create AGENTS.md at the workspace "
    "root with write_file: what the project is, how to set it up, build, test and lint it (exact "
    "commands), how the code is laid out, and the conventions a coding agent must follow. Keep it "
    "short and specific to this project. If an AGENTS.md exists, read it and improve it instead."
)
NAME = re.compile(r"^/([A-Za-z][\w:-]*)(?:\s+(.*))?$", re.DOTALL)


@dataclass(frozen=True)
class SlashCommand:
    name: str
    description: str
    hint: str | None = None
    template: str | None = None  # None: one of Heron's own, or a skill
    skill: Skill | None = None  # the skill it runs


def parse(text: str) -> tuple[str, str] | None:
    """``("model", "openai:gpt-5")`` for ``"/model openai:gpt-5"``; None if not a command."""
    match = NAME.match(text.strip())
    return (match.group(1), (match.group(2) or "").strip()) if match else None


def available_commands(
    workspace: Path, home: Path, skills: Sequence[Skill] = ()
) -> dict[str, SlashCommand]:
    commands = {name: SlashCommand(name, about, hint) for name, (about, hint) in BUILTINS.items()}
    for folder in (home / "commands", workspace / ".heron" / "commands"):  # later wins
        for file in sorted(folder.glob("*.md")) if folder.is_dir() else ():
            if file.stem not in BUILTINS and (command := _read(file)) is not None:
                commands[command.name] = command
    for skill in skills:
        if skill.name not in commands:
            about = skill.description
            about = about if len(about) <= 200 else about[:199].rsplit(" ", 1)[0] + "…"
            commands[skill.name] = SlashCommand(skill.name, about, skill.hint, skill=skill)
    return commands


def expand(command: SlashCommand, arguments: str) -> str:
    assert command.template is not None
    text = command.template.replace("$ARGUMENTS", arguments)
    return text if "$ARGUMENTS" in command.template or not arguments else f"{text}\n\n{arguments}"


def _read(file: Path) -> SlashCommand | None:
    try:
        lines = file.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    fields: dict[str, str] = {}
    while lines and (
        match := re.match(r"^(description|argument-hint):\s*(.*)$", lines[0], re.IGNORECASE)
    ):
        fields[match.group(1).lower()] = match.group(2).strip()
        lines.pop(0)
    body = "\n".join(lines).strip()
    if not body:
        return None
    description = fields.get("description") or body.splitlines()[0][:80]
    return SlashCommand(file.stem, description, fields.get("argument-hint"), body)
