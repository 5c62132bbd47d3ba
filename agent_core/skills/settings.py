"""``[skills]`` in config.toml, and the folders it names, in the order a name clash is settled.

Defaults: the project's ``.heron/skills`` and the user's ``$HERON_HOME/skills`` are read; of the
folders other agents share (the open Agent Skills layout, ``.agents/skills`` and
``.claude/skills``), the workspace's are read, as its ``CLAUDE.md`` is, and the home folder's
are not unless ``shared = "all"``: those are another agent's personal setup.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from agent_core.config_values import choice, number
from agent_core.errors import ConfigError

SHARED = ("none", "project", "all")
SHARED_FOLDERS = (".agents/skills", ".claude/skills")


class SkillSettings(NamedTuple):
    """``[skills]``: the instruction packs the agent lists, loads and runs as commands."""

    enabled: bool = True  # false: no skills at all (no listing, no tool, no commands)
    project: bool = True  # <workspace>/.heron/skills
    user: bool = True  # $HERON_HOME/skills
    # .agents/skills and .claude/skills: "none", "project" (the workspace's), "all" (also ~/'s)
    shared: str = "project"
    max_chars: int = 20_000  # a loaded SKILL.md or file beside it is cut here


def read_skills(section: dict[str, Any]) -> SkillSettings:
    defaults = SkillSettings()
    flags = {
        key: section.get(key, getattr(defaults, key)) for key in ("enabled", "project", "user")
    }
    if not all(isinstance(value, bool) for value in flags.values()):
        raise ConfigError("config.toml: [skills] enabled, project and user must be true or false")
    return SkillSettings(
        **flags,
        shared=choice(section, "shared", SHARED) or defaults.shared,
        max_chars=int(number(section, "max_chars", defaults.max_chars, minimum=1000)),
    )


class SkillFolder(NamedTuple):
    path: Path  # a folder of skill folders
    origin: str  # "project" or "user": whose it is, as the user reads it
    root: Path | None = None  # what its files must lie inside (None: the user's own folder)


def skill_folders(
    settings: SkillSettings, workspace: Path, heron_home: Path, user_home: Path
) -> tuple[SkillFolder, ...]:
    """Where skills are looked for, first wins on a clash: the project's before the user's, and
    Heron's own folder before the shared ones."""
    if not settings.enabled:
        return ()
    folders: list[SkillFolder] = []
    if settings.project:
        folders.append(SkillFolder(workspace / ".heron" / "skills", "project", workspace))
    if settings.shared in ("project", "all"):
        folders += [SkillFolder(workspace / name, "project", workspace) for name in SHARED_FOLDERS]
    if settings.user:
        folders.append(SkillFolder(heron_home / "skills", "user"))
    if settings.shared == "all":
        folders += [SkillFolder(user_home / name, "user") for name in SHARED_FOLDERS]
    return tuple(folders)
