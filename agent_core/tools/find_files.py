"""``find_files``: list files by glob (ripgrep, .gitignore respected)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from agent_core.events import ToolKind
from agent_core.tools.arguments import Arguments
from agent_core.tools.base import ToolContext, require_inside
from agent_core.tools.ripgrep import NEVER_SEARCHED, ripgrep
from agent_core.tools.search import cap_lines, rg_paths


class FindFilesArguments(Arguments):
    glob: str = Field("*", description='Files to list, e.g. "*.py" or "src/**/*.ts".')
    path: str = Field(".", description="Directory to look in, relative to the workspace root.")
    max_results: int = Field(500, ge=1, le=5000)


class FindFiles:
    name = "find_files"
    kind: ToolKind = "search"
    read_only = True
    arguments = FindFilesArguments
    description = (
        "List files matching a glob, sorted by path; ignored files (.gitignore) are left out."
    )

    def title(self, arguments: Mapping[str, Any]) -> str:
        return f"Find `{arguments.get('glob', '*')}`"

    async def run(self, arguments: FindFilesArguments, context: ToolContext) -> str:
        root = context.workspace.roots[0]
        target = require_inside(context, arguments.path)
        command = [
            "--files",
            "--sort=path",
            "--glob",
            arguments.glob,
            *NEVER_SEARCHED,
            "--",
            *rg_paths(target, root),
        ]
        output = await ripgrep(command, root)
        return cap_lines(output, arguments.max_results, "no files match")
