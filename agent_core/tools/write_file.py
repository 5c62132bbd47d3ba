"""``write_file``: create a file or replace it whole, as a reviewed change."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from agent_core.events import ToolKind
from agent_core.tools.arguments import Arguments
from agent_core.tools.base import ToolContext
from agent_core.tools.edits import (
    current_text,
    first_changed_line,
    propose_and_write,
    with_diagnostics,
)


class WriteFileArguments(Arguments):
    path: str = Field(
        description="File to create or overwrite, relative to the workspace root or absolute."
    )
    content: str = Field(description="The complete new content.")


class WriteFile:
    name = "write_file"
    kind: ToolKind = "edit"
    read_only = False
    arguments = WriteFileArguments
    description = (
        "Create a file, or replace a whole file you have read. The user reviews the change as a "
        "diff. Prefer edit_file for changes to part of a file."
    )

    def title(self, arguments: Mapping[str, Any]) -> str:
        return f"Write {arguments.get('path', 'file')}"

    async def run(self, arguments: WriteFileArguments, context: ToolContext) -> str:
        path, _ = context.path(arguments.path)
        old = await current_text(context, path, must_exist=False)
        line = 1 if old is None else first_changed_line(old, arguments.content)
        said = await propose_and_write(
            context, self.title({"path": context.shown(path)}), path, old, arguments.content, line
        )
        verb = "Created" if old is None else "Rewrote"
        done = f"{verb} {context.shown(path)} ({len(arguments.content.splitlines())} lines)."
        return with_diagnostics(done, said)
