"""What a watcher follows, and what a changed path means.

Only what Heron reads itself is followed: single files (the context files, ``config.toml``, the
user's instructions, the memory files) by their parent folder, watched alone; the commands and
skill folders with everything below them. A workspace's other trees (``.git``,
``node_modules``, build output) are never walked, however large. A folder not there yet is
followed through its nearest existing ancestor, watched alone, so that its creation is seen and
the watch is laid again (``watch_points`` differs). A workspace's tree that is a link leading
out of the workspace is not followed (its loader refuses it, ``safety/safe_open.py``): only the
link itself is, through its folder.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Literal, NamedTuple

from agent_core.context.files import NAMES, instruction_folders
from agent_core.skills.settings import SkillSettings, skill_folders

Kind = Literal["commands", "instructions", "memory", "config"]
MEMORY_FILES = ("notes.md", "user.md")  # agent_core.memory.notes.FILES, under <home>/memory


class Targets(NamedTuple):
    files: Mapping[Path, Kind]  # followed through their parent folder, watched alone
    trees: Mapping[Path, Kind]  # followed with everything below them
    inside: Path | None = None  # where the trees must lead (a workspace); None: the user's own


class WatchPoints(NamedTuple):
    flat: frozenset[Path]  # folders watched alone
    deep: frozenset[Path]  # folders watched with everything below them


def workspace_targets(cwd: Path, skills: SkillSettings, home: Path) -> Targets:
    """A workspace's: its instructions (AGENTS.md and kin, up to the repository root), its
    commands folder and its skill folders."""
    files: dict[Path, Kind] = {
        folder / name: "instructions" for folder in instruction_folders(cwd) for name in NAMES
    }
    trees: dict[Path, Kind] = {cwd / ".heron" / "commands": "commands"}
    for folder in skill_folders(skills, cwd, home, Path.home()):
        if folder.root is not None:  # the project's; the user's are the home watcher's
            trees[folder.path] = "commands"
    return Targets(files, trees, cwd)


def home_targets(
    home: Path,
    skills: SkillSettings,
    user_instructions: Iterable[Path],
    *,
    memory: bool,
) -> Targets:
    """Heron's home: ``config.toml``, the user's instructions, the memory files, the user's
    commands and skill folders."""
    files: dict[Path, Kind] = {home / "config.toml": "config"}
    files.update({path: "instructions" for path in user_instructions})
    if memory:
        files.update({home / "memory" / name: "memory" for name in MEMORY_FILES})
    trees: dict[Path, Kind] = {home / "commands": "commands"}
    for folder in skill_folders(skills, home, home, Path.home()):
        if folder.root is None:  # the user's own
            trees[folder.path] = "commands"
    return Targets(files, trees)


def watch_points(targets: Targets) -> WatchPoints:
    """The folders to watch now (a few ``stat`` calls): each file's parent, each tree that
    exists (and leads inside ``inside``); for anything else, its nearest existing ancestor,
    alone."""
    flat = {_existing(path.parent) for path in targets.files}
    deep: set[Path] = set()
    inside = targets.inside.resolve() if targets.inside is not None else None
    for tree in targets.trees:
        if tree.is_dir() and (inside is None or tree.resolve().is_relative_to(inside)):
            deep.add(tree)
        else:
            flat.add(_existing(tree.parent))
    return WatchPoints(frozenset(flat), frozenset(deep))


def what_changed(targets: Targets, paths: Iterable[Path]) -> frozenset[Kind]:
    """What the changed ``paths`` touch: a followed file, anything in or above a followed tree,
    a folder on the way to a followed file."""
    kinds: set[Kind] = set()
    for path in paths:
        if (kind := targets.files.get(path)) is not None:
            kinds.add(kind)
            continue
        for tree, kind in targets.trees.items():
            if path == tree or tree in path.parents or path in tree.parents:
                kinds.add(kind)
        for file, kind in targets.files.items():
            if path in file.parents:
                kinds.add(kind)
    return frozenset(kinds)


def _existing(folder: Path) -> Path:
    while not folder.is_dir() and folder.parent != folder:
        folder = folder.parent
    return folder
