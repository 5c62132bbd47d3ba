"""The system prompt, assembled once per session, in a fixed order, and frozen for it.

Order: identity, tool-use guidance, model-family guidance, the project's context files, the
skills (names and descriptions; ``skills/listing.py``), the environment. Nothing mid-session
changes it except an explicit user action (``/reload``, a model switch, a compaction), so
provider prompt caches keep hitting turn after turn.
"""

from __future__ import annotations

import platform
from collections.abc import Collection, Sequence
from datetime import date
from pathlib import Path

from msgspec import Struct

from agent_core.context.families import family_guidance
from agent_core.context.files import (
    ContextFile,
    find_context_files,
    render_context_files,
    user_context_files,
)
from agent_core.skills.catalog import Skill
from agent_core.skills.listing import render_listing

IDENTITY = (
    "You are Heron, a coding agent working inside the user's editor. You help with software "
    "engineering tasks in the user's workspace: read before you change, make focused edits, "
    "and explain briefly what you did."
)
# The guidance on tools, a line per row, each with the tools it names: a line whose tool is
# switched off (``[tools]`` in config.toml) is left out, never telling the model of a tool it lacks.
TOOL_GUIDANCE: tuple[tuple[frozenset[str], str], ...] = (
    (
        frozenset({"find_files", "search", "read_file"}),
        "- Look before you act: find_files and search to orient yourself, read_file before "
        "editing.",
    ),
    (
        frozenset({"edit_file", "write_file"}),
        "- Prefer edit_file with small, exact replacements; write_file for new files.",
    ),
    (
        frozenset(),
        "- Every edit and command is shown to the user, who may reject it: when they do, adjust.",
    ),
    (
        frozenset({"clarify"}),
        "- When only the user can settle a choice that matters, ask with clarify instead of "
        "guessing; never ask what the tools can tell you.",
    ),
    (frozenset({"todo"}), "- Use todo to plan multi-step work and keep the plan current."),
    (
        frozenset({"terminal"}),
        "- Run the project's tests or checks with terminal after changing code, when there are "
        "any.",
    ),
    (
        frozenset({"execute_code"}),
        "- For work of many steps over many files, write one execute_code script that calls the "
        "tools and prints a short summary, instead of many separate calls.",
    ),
    (
        frozenset({"delegate"}),
        "- Hand exploration of a large codebase, broad searches and reviews to subagents with "
        "delegate (several at once for independent questions); only their reports enter this "
        "conversation.",
    ),
    (frozenset(), "- Paths are relative to the workspace root unless absolute."),
)
SUBAGENT_IDENTITY = (
    "You are a subagent of Heron, a coding agent working inside the user's editor. Another "
    "agent gave you one task. Do it with the tools you have, then reply with a concise report "
    "for that agent: it sees only your final reply. The user sees your tool calls and approves "
    "changes as usual, but cannot answer questions: where something is unclear, choose the "
    "safe reading and say so in the report."
)
SUBAGENT_GUIDANCE: tuple[tuple[frozenset[str], str], ...] = (
    TOOL_GUIDANCE[0],
    (
        frozenset(),
        "- Stay within your task; do not change what it does not ask you to change.",
    ),
    (frozenset(), "- Cite files with paths and line numbers in your report."),
    TOOL_GUIDANCE[-1],
)


class Environment(Struct, frozen=True):
    cwd: Path
    additional_directories: tuple[Path, ...]
    shell: str
    today: date
    repository: str = "not a git repository"  # the branch and what changed (safety.git)


class SystemPrompt(Struct, frozen=True):
    text: str
    context_files: tuple[ContextFile, ...]  # including the blocked ones, to tell the user


def build_system_prompt(
    environment: Environment,
    model: str,
    editor: tuple[str, str] | None = None,
    *,
    subagent: bool = False,
    user_files: Sequence[Path] = (),
    memory: str = "",
    skills: Sequence[Skill] | None = None,
    switched_off: Collection[str] = (),
    api: str = "",
) -> SystemPrompt:
    """``editor``: the editor's own system prompt as (mode, text); ``override`` replaces Heron's
    identity and guidance, ``append`` comes last. A ``subagent``'s prompt has its own identity
    and guidance, and the project's instructions, but not the editor's prompt. ``user_files``:
    the user's own instructions, before the project's; ``memory``: the memory snapshot;
    ``skills``: the ones to list (None: skills are off, the section is left out);
    ``switched_off``: the tools the model lacks, whose guidance is left out; ``api``: the API
    ``model``'s provider speaks ("": its name), for the guidance by family and API."""
    mine = user_context_files(user_files)
    files = find_context_files(environment.cwd)
    if subagent:
        sections, editor = [SUBAGENT_IDENTITY, tool_guidance(SUBAGENT_GUIDANCE, switched_off)], None
    elif editor is not None and editor[0] == "override":
        sections = [editor[1]]
    else:
        sections = [IDENTITY, tool_guidance(TOOL_GUIDANCE, switched_off)]
        if guidance := family_guidance(model, api):
            sections.append(guidance)
    if instructions := render_context_files(mine, tag="user-instructions"):
        sections.append(
            "# Your user's instructions\nThe user wrote these for every project; the "
            "project's own instructions below come after them.\n\n" + instructions
        )
    if instructions := render_context_files(files):
        sections.append(
            "# Project instructions\nFollow these; they come from the project itself.\n\n"
            + instructions
        )
    if skills is not None:
        sections.append(render_listing(skills))
    if memory:
        sections.append(
            "# Memory\nWhat you wrote down in earlier sessions (the memory tool changes it for "
            "later ones). Trust it less than what you see now.\n\n" + memory
        )
    sections.append(_environment(environment))
    if editor is not None and editor[0] == "append":
        sections.append("# Instructions from the editor\n" + editor[1])
    return SystemPrompt("\n\n".join(sections) + "\n", (*mine, *files))


def tool_guidance(rows: Sequence[tuple[frozenset[str], str]], switched_off: Collection[str]) -> str:
    """The guidance section: the lines whose tools are all on."""
    off = frozenset(switched_off)
    return "\n".join(["# Working with tools", *(line for needs, line in rows if not needs & off)])


def _environment(environment: Environment) -> str:
    roots = "\n".join(f"- {p}" for p in environment.additional_directories) or "- (none)"
    return (
        "# Environment\n"
        f"Workspace root: {environment.cwd}\n"
        f"Additional directories:\n{roots}\n"
        f"Operating system: {platform.system()} {platform.release()}\n"
        f"Shell: {environment.shell}\n"
        f"Git: {environment.repository}\n"
        f"Today's date: {environment.today.isoformat()}"
    )
