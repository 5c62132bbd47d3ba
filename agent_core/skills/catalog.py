"""The skills a session can use: found in their folders, read, screened, and loaded on request.

A skill is a folder holding ``SKILL.md``: a front matter with ``name`` and ``description``, then
the instructions; other files beside it (scripts, references, templates) are read only when
asked for, and only from inside that folder. ``SKILL.md`` is screened for injection as the
project's context files are (``safety/injection.py``), front matter included, since the
description goes into the system prompt; a skill that fails is left out, and why is kept for a
notice. A file beside it is screened when it is loaded.

Discovery reads the folders afresh each time (a few directory listings and small reads), so the
tool and the commands see a skill proposed during the session; the system prompt keeps the
list it was built with. It blocks: callers run it in a worker thread.

A repository is untrusted input: folders are listed and files read by ``safety/safe_open.py``.
A project's skill (its folder, its ``SKILL.md``) must lie inside the workspace once its links
are resolved, and be a regular file; a file beside it, inside the skill's folder. The user's
own folders follow the user's links (a skill folder linked in from elsewhere), with the same
checks otherwise.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct

from agent_core.errors import ToolError
from agent_core.safety.injection import screen
from agent_core.safety.safe_open import (
    Listing,
    UnsafeFile,
    list_inside,
    list_own,
    read_from,
    read_inside,
    why_unreadable,
)
from agent_core.skills.frontmatter import FrontMatterError, split_front_matter
from agent_core.skills.settings import SkillFolder, SkillSettings, skill_folders

SKILL_FILE = "SKILL.md"
FOLDER = "the skill's folder"
NAME = re.compile(r"^[A-Za-z][\w-]{0,63}$")  # also a slash command's name
MAX_SKILL_BYTES = 1_000_000  # a SKILL.md larger than this is left out, unread
MAX_LISTED_FILES = 50  # files beside SKILL.md named when it is loaded
MAX_WALKED = 1000  # files beside it looked at, at most
MAX_SKILLS = 500  # entries of one skills folder looked at


class Skill(Struct, frozen=True):
    name: str
    description: str
    path: Path  # its SKILL.md
    origin: str  # "project" or "user"
    instructions: str  # SKILL.md after the front matter
    hint: str | None = None  # argument-hint: what its command takes

    @property
    def folder(self) -> Path:
        return self.path.parent


class LeftOut(Struct, frozen=True):
    path: Path  # the SKILL.md, or a whole folder of skills
    reason: str

    @property
    def skill(self) -> str | None:
        """The skill's name (its folder's), or None for a folder of skills."""
        return self.path.parent.name if self.path.name == SKILL_FILE else None


class Catalog(Struct, frozen=True):
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
        for path in _skill_files(folder, left_out):
            found = read_skill(path, folder.origin, folder.root)
            if isinstance(found, LeftOut):
                left_out.append(found)
            elif found.name not in skills:
                skills[found.name] = found
    return Catalog(tuple(skills.values()), tuple(left_out))


def read_skill(path: Path, origin: str, root: Path | None = None) -> Skill | LeftOut:
    """One ``SKILL.md`` (inside ``root``; None: the user's own), or why it is left out."""
    try:
        read = read_from(path, root, MAX_SKILL_BYTES, whole=True)
    except (OSError, UnsafeFile) as exc:
        return LeftOut(path, why_unreadable(exc))
    text = read.text()
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
    try:  # enough to tell when it is longer than max_chars
        data = read_inside(root / relative, [root], 4 * (max_chars + 1), where=FOLDER).data
    except (OSError, UnsafeFile) as exc:
        raise ToolError(f"{relative}: {why_unreadable(exc)}.") from None
    if b"\0" in data[:8192]:
        raise ToolError(f"{relative} is not a text file.")
    text = data.decode("utf-8", errors="replace")
    if reason := screen(text):
        raise ToolError(f"{relative} was not loaded: {reason}.")
    return cut(text, max_chars, relative)


def files_beside(skill: Skill) -> list[str]:
    """The regular files in ``skill``'s folder other than SKILL.md, relative to it, the first
    ``MAX_WALKED`` found (in no more than ``MAX_WALKED`` folders): hidden ones are passed
    over, symlinks are not followed, FIFOs and devices not named."""
    root = skill.folder.resolve()
    found: list[str] = []
    for walked, (directory, folders, files) in enumerate(os.walk(root)):
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        here = Path(directory)
        for name in sorted(files):
            path = here / name
            if name.startswith(".") or not _regular(path) or path == root / SKILL_FILE:
                continue
            found.append(path.relative_to(root).as_posix())
            if len(found) >= MAX_WALKED:
                return found
        if walked >= MAX_WALKED:
            break
    return found


def _regular(path: Path) -> bool:
    """A regular file, not a link to one."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _skill_files(folder: SkillFolder, left_out: list[LeftOut]) -> list[Path]:
    """The ``SKILL.md`` of each skill folder in ``folder``, listed without following links out
    of its root; a folder that cannot be listed safely is left out."""
    listing: Listing
    try:
        if folder.root is None:
            listing = list_own(folder.path, MAX_SKILLS)
        else:
            listing = list_inside(folder.path, [folder.root], MAX_SKILLS)
    except (FileNotFoundError, NotADirectoryError):  # no such folder, or not one
        return []
    except (OSError, UnsafeFile) as exc:
        left_out.append(LeftOut(folder.path, why_unreadable(exc)))
        return []
    if listing.cut:
        left_out.append(LeftOut(folder.path, f"only its first {MAX_SKILLS} entries were read"))
    return [
        entry / SKILL_FILE
        for entry in listing.entries
        if not entry.name.startswith(".") and os.path.lexists(entry / SKILL_FILE)
    ]


def cut(text: str, max_chars: int, name: str) -> str:
    if len(text) <= max_chars:
        return text
    return text[:max_chars] + f"\n\n[{name} cut at {max_chars:,} characters]"
