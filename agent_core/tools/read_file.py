"""``read_file``: numbered lines of a text file, through the editor so unsaved edits show; or an
image (PNG, JPEG, GIF, WebP), read from the disk (the editor's file methods carry text only),
for the model to see and the user to see with it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
from pydantic import Field

from agent_core.errors import ToolError
from agent_core.events import ImageContent, Location, ToolCallUpdated, ToolKind
from agent_core.messages import ImagePart
from agent_core.tools import images
from agent_core.tools.arguments import Arguments
from agent_core.tools.base import ToolContext, ToolOutput, require_inside

MAX_LINES = 2000
MAX_LINE_CHARS = 2000
MAX_BYTES = 100_000


class ReadFileArguments(Arguments):
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
        "the end says which offset to continue from. You must read a file before editing it. "
        "PNG, JPEG, GIF and WebP images are returned as images."
    )

    def title(self, arguments: Mapping[str, Any]) -> str:
        return f"Read {arguments.get('path', 'file')}"

    async def run(self, arguments: ReadFileArguments, context: ToolContext) -> str | ToolOutput:
        path = require_inside(context, arguments.path)
        image = await anyio.to_thread.run_sync(images.load, path)
        if image is not None:
            return await _image(path, image, context)
        text = await context.workspace.read_text(path)
        context.files.saw(path, text)
        await context.report(
            ToolCallUpdated(context.call_id, locations=(Location(str(path), arguments.offset),))
        )
        return number_lines(text, arguments.offset, arguments.limit)


async def _image(path: Path, image: images.ImageFile, context: ToolContext) -> ToolOutput:
    """The image for the model (the loop turns it into a note for one that cannot see images),
    and on the call for the user."""
    about = f"{context.shown(path)}: {image.picture.describe(image.size)}"
    if image.data is None or image.picture.too_large:
        limit = (
            f"{images.MAX_IMAGE_BYTES:,} bytes"
            if image.data is None
            else f"{images.MAX_IMAGE_SIDE} pixels a side"
        )
        raise ToolError(f"{about}, over the {limit} a model is shown; read a smaller copy.")
    mime = image.picture.mime_type
    shown = (ImageContent(image.data, mime),)
    await context.report(
        ToolCallUpdated(context.call_id, content=shown, locations=(Location(str(path)),))
    )
    return ToolOutput(f"{about}.", (ImagePart(image.data, mime),))


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
