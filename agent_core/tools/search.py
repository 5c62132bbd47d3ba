"""``search``: regular-expression search of file contents (ripgrep, .gitignore respected)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field

from agent_core.events import ToolKind
from agent_core.tools.arguments import Arguments
from agent_core.tools.base import ToolContext, require_inside
from agent_core.tools.ripgrep import NEVER_SEARCHED, ripgrep


class SearchArguments(Arguments):
    pattern: str = Field(min_length=1, description="Regular expression (Rust regex syntax).")
    path: str = Field(
        ".", description="File or directory to search, relative to the workspace root."
    )
    glob: list[str] = Field(
        default_factory=list[str],
        description='Only files matching these globs, e.g. ["*.py", "!tests/**"].',
    )
    context: int = Field(0, ge=0, le=10, description="Lines of context around each match.")
    ignore_case: bool = False
    max_results: int = Field(200, ge=1, le=2000, description="Stop after this many output lines.")


class Search:
    name = "search"
    kind: ToolKind = "search"
    read_only = True
    arguments = SearchArguments
    description = "Search file contents with a regular expression. Returns `path:line:text` lines."

    def title(self, arguments: Mapping[str, Any]) -> str:
        pattern = arguments.get("pattern")
        return f"Search `{pattern}`" if pattern else "Search"

    async def run(self, arguments: SearchArguments, context: ToolContext) -> str:
        root = context.workspace.roots[0]
        target = require_inside(context, arguments.path)
        command = [
            "--line-number",
            "--no-heading",
            "--color=never",
            "--max-columns=300",
            "--max-columns-preview",
        ]
        if arguments.context:
            command.append(f"--context={arguments.context}")
        if arguments.ignore_case:
            command.append("--ignore-case")
        for glob in arguments.glob:
            command += ["--glob", glob]
        command += [*NEVER_SEARCHED, "--regexp", arguments.pattern, "--", *rg_paths(target, root)]
        output = await ripgrep(command, root)
        return cap_lines(output, arguments.max_results, "no matches")


def rg_paths(target: Path, root: Path) -> list[str]:
    """rg's path argument: none for the root itself, so results read ``src/a.py``, not ``./src``."""
    if target == root:
        return []
    return [str(target.relative_to(root)) if target.is_relative_to(root) else str(target)]


def cap_lines(output: str, limit: int, empty: str) -> str:
    lines = output.splitlines()
    if not lines:
        return f"({empty})"
    if len(lines) > limit:
        return "\n".join(
            [
                *lines[:limit],
                f"(first {limit} of {len(lines)} lines; narrow the search to see the rest)",
            ]
        )
    return "\n".join(lines)
