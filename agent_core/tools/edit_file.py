"""``edit_file``: exact string replacements in one file, several at once, as a reviewed change."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from agent_core.errors import ToolError
from agent_core.events import ToolKind
from agent_core.tools.arguments import Arguments
from agent_core.tools.base import ToolContext
from agent_core.tools.edits import (
    current_text,
    first_changed_line,
    propose_and_write,
    with_diagnostics,
)


class Replacement(Arguments):
    old_string: str = Field(
        min_length=1, description="Exact text to replace, with enough context to be unique."
    )
    new_string: str = Field(description="The text to put in its place.")
    replace_all: bool = Field(False, description="Replace every occurrence instead of exactly one.")


class EditFileArguments(Arguments):
    path: str = Field(description="File to edit, relative to the workspace root or absolute.")
    edits: list[Replacement] = Field(
        min_length=1, description="Applied in order, each to the result of the last."
    )


class EditFile:
    name = "edit_file"
    kind: ToolKind = "edit"
    read_only = False
    arguments = EditFileArguments
    description = (
        "Edit a file you have read by exact string replacement. Each old_string must occur exactly "
        "once unless replace_all is set. The user reviews the change as a diff."
    )

    def title(self, arguments: Mapping[str, Any]) -> str:
        return f"Edit {arguments.get('path', 'file')}"

    async def run(self, arguments: EditFileArguments, context: ToolContext) -> str:
        path, _ = context.path(arguments.path)
        old = await current_text(context, path, must_exist=True)
        assert old is not None
        new = apply_edits(old, arguments.edits, context.shown(path))
        if new == old:
            raise ToolError("The edits change nothing.")
        said = await propose_and_write(
            context,
            self.title({"path": context.shown(path)}),
            path,
            old,
            new,
            first_changed_line(old, new),
        )
        done = f"Edited {context.shown(path)} ({len(arguments.edits)} change(s))."
        return with_diagnostics(done, said)


def apply_edits(text: str, edits: list[Replacement], shown: str) -> str:
    for number, edit in enumerate(edits, 1):
        count = text.count(edit.old_string)
        label = f"edit {number}" if len(edits) > 1 else "the edit"
        if count == 0:
            raise ToolError(
                f"In {label}, old_string was not found in {shown}. "
                "Read the file again and copy the text exactly."
            )
        if count > 1 and not edit.replace_all:
            raise ToolError(
                f"In {label}, old_string occurs {count} times in {shown}: "
                "add surrounding lines to make it unique, or set replace_all."
            )
        text = text.replace(edit.old_string, edit.new_string, -1 if edit.replace_all else 1)
    return text
