"""Slash commands: Heron's own, the project's and user's prompt templates, and the skills.

A template is a Markdown file in ``.heron/commands/`` (the workspace's) or
``$HERON_HOME/commands/`` (the user's; the workspace wins on a clash). Optional first lines
``description: ...`` and ``argument-hint: ...``; the rest is the prompt, where ``$ARGUMENTS``
stands for whatever follows the command. Every skill (``agent_core/skills``) is a command too,
unless a built-in command or a template has its name.

The folders are listed and their templates read by ``safety/safe_open.py``: a workspace's
template (or its commands folder) that leads out of the workspace, a FIFO, a device, a folder, a
file that is not UTF-8 or one over ``MAX_TEMPLATE_BYTES`` is left out, and why is kept for a
notice. The user's own folder follows the user's links, with the same checks otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from msgspec import Struct

from agent_core.safety.safe_open import (
    Listing,
    UnsafeFile,
    list_inside,
    list_own,
    read_from,
    why_unreadable,
)

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
    "rewind": (
        "List the prompts, or go back to before prompt n: conversation, files or both",
        "n [conversation | files | both]",
    ),
    "export": (
        "Write this session to a file in the workspace (default: Markdown at its root)",
        "[markdown | jsonl | sharegpt] [path]",
    ),
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
MAX_TEMPLATE_BYTES = 256 * 1024
MAX_TEMPLATES = 500  # entries of one commands folder looked at


class SlashCommand(Struct, frozen=True):
    name: str
    description: str
    hint: str | None = None
    template: str | None = None  # None: one of Heron's own, or a skill
    skill: Skill | None = None  # the skill it runs


class LeftOut(NamedTuple):
    path: Path  # a template, or a commands folder
    reason: str


class Commands(NamedTuple):
    commands: dict[str, SlashCommand]
    left_out: tuple[LeftOut, ...]  # templates (or folders) not read, and why


def parse(text: str) -> tuple[str, str] | None:
    """``("model", "openai:gpt-5")`` for ``"/model openai:gpt-5"``; None if not a command."""
    match = NAME.match(text.strip())
    return (match.group(1), (match.group(2) or "").strip()) if match else None


def available_commands(
    workspace: Path, home: Path, skills: Sequence[Skill] = ()
) -> dict[str, SlashCommand]:
    return find_commands(workspace, home, skills).commands


def find_commands(workspace: Path, home: Path, skills: Sequence[Skill] = ()) -> Commands:
    """Heron's own commands, the user's templates, the workspace's (which win a clash), then
    the skills; blocking: call it in a worker thread."""
    commands = {name: SlashCommand(name, about, hint) for name, (about, hint) in BUILTINS.items()}
    left_out: list[LeftOut] = []
    for folder, root in ((home / "commands", None), (workspace / ".heron" / "commands", workspace)):
        for file in _template_files(folder, root, left_out):
            found = _template(file, root)
            if isinstance(found, LeftOut):
                left_out.append(found)
            elif found is not None:
                commands[found.name] = found
    for skill in skills:
        if skill.name not in commands:
            about = skill.description
            about = about if len(about) <= 200 else about[:199].rsplit(" ", 1)[0] + "…"
            commands[skill.name] = SlashCommand(skill.name, about, skill.hint, skill=skill)
    return Commands(commands, tuple(left_out))


def expand(command: SlashCommand, arguments: str) -> str:
    assert command.template is not None
    text = command.template.replace("$ARGUMENTS", arguments)
    return text if "$ARGUMENTS" in command.template or not arguments else f"{text}\n\n{arguments}"


def _template_files(folder: Path, root: Path | None, left_out: list[LeftOut]) -> list[Path]:
    """The ``*.md`` entries of ``folder`` (inside ``root``; None: the user's own folder) that
    are not named for a built-in command; a folder that cannot be listed safely is left out."""
    listing: Listing
    try:
        if root is None:
            listing = list_own(folder, MAX_TEMPLATES)
        else:
            listing = list_inside(folder, [root], MAX_TEMPLATES)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except (OSError, UnsafeFile) as exc:
        left_out.append(LeftOut(folder, why_unreadable(exc)))
        return []
    if listing.cut:
        left_out.append(LeftOut(folder, f"only its first {MAX_TEMPLATES} entries were read"))
    return [
        file
        for file in listing.entries
        if file.suffix == ".md" and not file.name.startswith(".") and file.stem not in BUILTINS
    ]


def _template(file: Path, root: Path | None) -> SlashCommand | LeftOut | None:
    """The command in ``file`` (inside ``root``; None: the user's own), why it is left out, or
    None when it is empty."""
    try:
        read = read_from(file, root, MAX_TEMPLATE_BYTES, whole=True)
    except (OSError, UnsafeFile) as exc:
        return LeftOut(file, why_unreadable(exc))
    try:
        lines = read.data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return LeftOut(file, "it is not UTF-8 text")
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
