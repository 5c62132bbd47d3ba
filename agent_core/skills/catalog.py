"""The skills a session can use: found in their folders, read, screened, and loaded on request.

A skill is a folder holding ``SKILL.md``: a front matter with ``name`` and ``description``, then
the instructions; other files beside it (scripts, references, templates) are read only when
asked for, and only from inside that folder. ``SKILL.md`` is screened for injection as the
project's context files are (``safety/injection.py``), front matter included, since the
description goes into the system prompt; a skill that fails is left out, and why is kept for a
notice. A file beside it is screened when it is loaded.

Discovery reads the folders afresh each time (a few directory listings and small reads), so the
tool and the commands see a skill proposed during the session; the system prompt keeps the
list it was built with.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_core.errors import ToolError
from agent_core.safety.injection import screen
from agent_core.skills.frontmatter import FrontMatterError, split_front_matter
from agent_core.skills.settings import SkillFolder, SkillSettings, skill_folders

SKILL_FILE = "SKILL.md"
NAME = re.compile(r"^[A-Za-z][\w-]{0,63}$")  # also a slash command's name
MAX_SKILL_BYTES = 1_000_000  # a SKILL.md larger than this is left out, unread
MAX_LISTED_FILES = 50  # files beside SKILL.md named when it is loaded
MAX_WALKED = 1000  # files beside it looked at, at most


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    path: Path  # its SKILL.md
    origin: str  # "project" or "user"
    instructions: str  # SKILL.md after the front matter
    hint: str | None = None  # argument-hint: what its command takes

    @property
    def folder(self) -> Path:
        return self.path.parent


@dataclass(frozen=True)
class LeftOut:
    path: Path  # the SKILL.md
    reason: str


@dataclass(frozen=True)
class Catalog:
    skills: tuple[Skill, ...] = ()  # in the order found; one per name
    left_out: tuple[LeftOut, ...] = ()

    def get(self, name: str) -> Skill | None:
        return next((s for s in self.skills if s.name == name), None)


def skills_on_disk(settings: SkillSettings, cwd: Path, home: Path) -> Catalog:
    """The skills on disk now, from the folders the settings name (``home``: Heron's home)."""
    return find_skills(skill_folders(settings, cwd, home, Path.home()))


def find_skills(folders: Sequence[SkillFolder]) -> Catalog:
    """Every skill in ``folders``; on a name clash the first folder's wins (``skill_folders``
    gives them in that order), within a folder the skills come by folder name."""
    skills: dict[str, Skill] = {}
    left_out: list[LeftOut] = []
    for folder in folders:
        for path in _skill_files(folder.path):
            found = read_skill(path, folder.origin)
            if isinstance(found, LeftOut):
                left_out.append(found)
            elif found.name not in skills:
                skills[found.name] = found
    return Catalog(tuple(skills.values()), tuple(left_out))


def read_skill(path: Path, origin: str) -> Skill | LeftOut:
    """One ``SKILL.md``, or why it is left out."""
    try:
        if path.stat().st_size > MAX_SKILL_BYTES:
            return LeftOut(path, f"it is over {MAX_SKILL_BYTES:,} bytes")
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        return LeftOut(path, f"unreadable: {exc.strerror}")
    if reason := screen(text):
        return LeftOut(path, reason)
    try:
        fields, instructions = split_front_matter(text)
    except FrontMatterError as exc:
        return LeftOut(path, str(exc))
    name = fields.get("name", "").strip() or path.parent.name
    description = " ".join(fields.get("description", "").split())
    if not NAME.match(name):
        return LeftOut(path, f"its name {name[:70]!r} is not letters, digits, - and _ (64 at most)")
    if not description:
        return LeftOut(path, "its front matter has no description, which says when to use it")
    if not instructions:
        return LeftOut(path, "it has no instructions after the front matter")
    hint = fields.get("argument-hint", "").strip() or None
    return Skill(name, description, path, origin, instructions, hint)


def load_instructions(skill: Skill, max_chars: int) -> str:
    """What the model is given when it loads ``skill``: where it is, the files beside it, and
    its instructions, cut at ``max_chars``."""
    files = files_beside(skill)
    listed = "\n".join(f"- {f}" for f in files[:MAX_LISTED_FILES]) or "- (none)"
    if len(files) > MAX_LISTED_FILES:
        listed += f"\n- … and {len(files) - MAX_LISTED_FILES} more"
    return (
        f"Skill {skill.name} ({skill.folder}).\n"
        f"Files beside SKILL.md (load one with the skill tool's file argument):\n{listed}\n\n"
        f"{cut(skill.instructions, max_chars, SKILL_FILE)}"
    )


def load_file(skill: Skill, relative: str, max_chars: int) -> str:
    """A text file of ``skill``'s folder, screened, cut at ``max_chars``. Raises ``ToolError``
    for a path that leaves the folder (``..``, absolute, a symlink out), a missing or binary
    file, or one that fails the screen."""
    root = skill.folder.resolve()
    if Path(relative).is_absolute():
        raise ToolError(f"{relative}: give a path relative to the skill's folder ({root}).")
    path = (root / relative).resolve()
    if not path.is_relative_to(root) or path == root:
        raise ToolError(f"{relative} is outside the skill's folder ({root}).")
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise ToolError(f"{relative} is a folder; name a file in it.") from None
    except OSError as exc:
        raise ToolError(f"{relative}: {exc.strerror or 'cannot be read'}.") from None
    if b"\0" in data[:8192]:
        raise ToolError(f"{relative} is not a text file.")
    text = data.decode("utf-8", errors="replace")
    if reason := screen(text):
        raise ToolError(f"{relative} was not loaded: {reason}.")
    return cut(text, max_chars, relative)


def files_beside(skill: Skill) -> list[str]:
    """The files in ``skill``'s folder other than SKILL.md, relative to it, the first
    ``MAX_WALKED`` found: hidden ones are passed over, symlinks are not followed."""
    root = skill.folder.resolve()
    found: list[str] = []
    for directory, folders, files in os.walk(root):
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        here = Path(directory)
        for name in sorted(files):
            path = here / name
            if name.startswith(".") or path.is_symlink() or path == root / SKILL_FILE:
                continue
            found.append(path.relative_to(root).as_posix())
            if len(found) >= MAX_WALKED:
                return found
    return found


def _skill_files(folder: Path) -> list[Path]:
    try:
        entries = sorted(folder.iterdir())
    except OSError:  # no such folder, or not one
        return []
    return [
        entry / SKILL_FILE
        for entry in entries
        if not entry.name.startswith(".") and (entry / SKILL_FILE).is_file()
    ]


def cut(text: str, max_chars: int, name: str) -> str:
    if len(text) <= max_chars:
        return text
    return text[:max_chars] + f"\n\n[{name} cut at {max_chars:,} characters]"
