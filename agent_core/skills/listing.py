"""What the model is told of skills: the system prompt's section (names and descriptions only,
within a budget) and the prompt a ``/skill-name args`` command becomes. Pure functions."""

from __future__ import annotations

from collections.abc import Sequence

from agent_core.skills.catalog import SKILL_FILE, Skill, cut

LISTING_CHARS = 9_000  # the lines of skills in the system prompt, about 2,250 tokens
MAX_DESCRIPTION = 250  # characters of a description listed, when the budget allows
MIN_DESCRIPTION = 60  # below this, the skills that do not fit are named without one
HEADER = (
    "# Skills\n"
    "Skills are instructions for particular tasks, each in a folder with files it may use. "
    "When a request matches a skill's description, load it with the skill tool first and "
    "follow it; load the files it mentions with the tool's file argument. The user runs one "
    "as /name. A procedure worth keeping can become a skill: propose "
    ".heron/skills/<name>/SKILL.md with write_file (front matter with name and description, "
    "then the instructions); the user reviews it."
)


def render_listing(skills: Sequence[Skill], budget: int = LISTING_CHARS) -> str:
    """The system prompt's skills section: one line per skill, descriptions shortened evenly
    so the lines fit ``budget``; past it, the rest named only."""
    if not skills:
        return HEADER + "\nNo skills are installed yet."
    names = sum(len(s.name) + 4 for s in skills)  # "- name: "
    room = (budget - names) // len(skills)
    cap = max(MIN_DESCRIPTION, min(MAX_DESCRIPTION, room))
    lines: list[str] = []
    used = 0
    for index, skill in enumerate(skills):
        line = f"- {skill.name}: {_shorten(skill.description, cap)}"
        if used + len(line) > budget:
            rest = ", ".join(s.name for s in skills[index:])
            lines.append(f"- Also (load one to see what it is for): {rest}")
            break
        lines.append(line)
        used += len(line) + 1
    return HEADER + "\n" + "\n".join(lines)


def command_prompt(skill: Skill, arguments: str, max_chars: int) -> str:
    """The prompt ``/name arguments`` becomes: the skill's instructions (``$ARGUMENTS`` in
    them stands for the arguments), then the arguments as the request."""
    instructions = cut(skill.instructions, max_chars, SKILL_FILE)
    body = instructions.replace("$ARGUMENTS", arguments)
    request = (
        f"\n\nThe request: {arguments}" if arguments and "$ARGUMENTS" not in instructions else ""
    )
    return (
        f"Follow the skill {skill.name} (loaded from {skill.path}; the skill tool loads the "
        f'files beside it).\n\n<skill name="{skill.name}">\n{body}\n</skill>{request}'
    )


def _shorten(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:.") + "…"
