"""``skill``: load one of the skills the system prompt lists, or a file beside its SKILL.md.

The skills are found afresh on each call (``skills/catalog.py``), so one proposed during the
session loads too. Read-only: it reads the skill's folder, never outside it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import anyio
from pydantic import Field

from agent_core.errors import ToolError
from agent_core.events import ToolKind
from agent_core.skills.catalog import Catalog, load_file, load_instructions
from agent_core.tools.arguments import Arguments
from agent_core.tools.base import ToolContext


class SkillArguments(Arguments):
    name: str = Field(min_length=1, description="The skill's name, as listed under # Skills.")
    file: str | None = Field(
        None,
        description="A file beside its SKILL.md to load instead (a path relative to the "
        "skill's folder, as the loaded skill lists it).",
    )


class SkillTool:
    name = "skill"
    kind: ToolKind = "read"
    read_only = True
    arguments = SkillArguments
    description = (
        "Load a skill listed under # Skills: its instructions and the files beside them. "
        "Load it before a task its description matches, then follow it. With `file`, load one "
        "of its files (a reference, a template, a script to read). To propose a new skill, "
        "write .heron/skills/<name>/SKILL.md with write_file instead."
    )

    def __init__(self, catalog: Callable[[], Catalog], max_chars: int) -> None:
        self._catalog = catalog  # the skills as they are on disk now
        self._max_chars = max_chars

    def title(self, arguments: Mapping[str, Any]) -> str:
        name, file = arguments.get("name") or "", arguments.get("file")
        return f"Skill {name}: {file}" if file else f"Skill {name}".rstrip()

    async def run(self, arguments: SkillArguments, context: ToolContext) -> str:
        del context  # a skill's folder is read directly: it need not be in the workspace
        return await anyio.to_thread.run_sync(self._load, arguments)

    def _load(self, arguments: SkillArguments) -> str:
        catalog = self._catalog()
        skill = catalog.get(arguments.name)
        if skill is None:
            blocked = [f for f in catalog.left_out if f.skill == arguments.name]
            if blocked:
                raise ToolError(f"The skill {arguments.name} was left out: {blocked[0].reason}.")
            names = ", ".join(s.name for s in catalog.skills) or "none"
            raise ToolError(f"There is no skill {arguments.name!r}. Skills: {names}.")
        if arguments.file:
            return load_file(skill, arguments.file, self._max_chars)
        return load_instructions(skill, self._max_chars)
