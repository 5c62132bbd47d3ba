"""``read_file``: numbered lines of a text file, through the editor so unsaved edits show."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from agent_core.events import Location, ToolCallUpdated, ToolKind
from agent_core.tools.base import ToolContext, require_inside

MAX_LINES = 2000
MAX_LINE_CHARS = 2000
MAX_BYTES = 100_000


class ReadFileArguments(BaseModel):
    path: str = Field(
        description="File to read: relative to the workspace root, or absolute inside it."
    )
    offset: int = Field(1, ge=1, description="1-based line to start at.")
    limit: int = Field(MAX_LINES, ge=1, le=MAX_LINES, description="How many lines to read at most.")


class ReadFile:
    name = "read_file"
    kind: ToolKind = "read"
    read_only = True
    arguments = ReadFileArguments
    description = (
        "Read a text file. Returns numbered lines (`  12\\tcode`). Long files are cut; the note at "
        "the end says which offset to continue from. You must read a file before editing it."
    )

    def title(self, arguments: Mapping[str, Any]) -> str:
        return f"Read {arguments.get('path', 'file')}"

    async def run(self, arguments: ReadFileArguments, context: ToolContext) -> str:
        path = require_inside(context, arguments.path)
        text = await context.workspace.read_text(path)
        context.files.saw(path, text)
        await context.report(
            ToolCallUpdated(context.call_id, locations=(Location(str(path), arguments.offset),))
        )
        return number_lines(text, arguments.offset, arguments.limit)


def number_lines(text: str, offset: int, limit: int) -> str:
    lines = text.splitlines()
    if not lines:
        return "(empty file)"
    if offset > len(lines):
        return f"(the file has only {len(lines)} lines)"
    out: list[str] = []
    size = 0
    last = min(offset - 1 + limit, len(lines))
    for number in range(offset, last + 1):
        line = lines[number - 1]
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + " … (line cut)"
        size += len(line) + 8
        if size > MAX_BYTES:
            out.append(
                f"(truncated at line {number - 1} of {len(lines)}; read on with offset={number})"
            )
            return "\n".join(out)
        out.append(f"{number:6}\t{line}")
    if last < len(lines):
        out.append(
            f"(showing lines {offset}-{last} of {len(lines)}; read on with offset={last + 1})"
        )
    return "\n".join(out)
