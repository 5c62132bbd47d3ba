"""What an MCP tool call returned, as the model reads it and as the editor shows it. Pure."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from msgspec import Struct

from agent_core.events import ImageContent, ResourceContent, TextContent, ToolContent
from agent_core.messages import ImagePart

if TYPE_CHECKING:
    from mcp.types import CallToolResult

MAX_TEXT_CHARS = 50_000


class Converted(Struct, frozen=True):
    text: str  # for the model
    images: tuple[ImagePart, ...]  # for the model, when it can see them
    shown: tuple[ToolContent, ...]  # for the editor
    is_error: bool


def from_call_result(result: CallToolResult) -> Converted:
    from mcp.types import (
        AudioContent,
        BlobResourceContents,
        EmbeddedResource,
        ResourceLink,
        TextResourceContents,
    )
    from mcp.types import (
        ImageContent as McpImage,
    )
    from mcp.types import (
        TextContent as McpText,
    )

    texts: list[str] = []
    images: list[ImagePart] = []
    shown: list[ToolContent] = []
    for block in result.content:
        match block:
            case McpText(text=text):
                texts.append(text)
                shown.append(TextContent(text))
            case McpImage(data=data, mime_type=mime):
                images.append(ImagePart(data, mime))
                shown.append(ImageContent(data, mime))
            case ResourceLink(uri=uri, name=name, mime_type=mime):
                texts.append(f"Resource {name}: {uri}")
                shown.append(ResourceContent(str(uri), name, mime))
            case EmbeddedResource(resource=BlobResourceContents(uri=uri, mime_type=mime)):
                texts.append(f"[binary resource {uri} ({mime or 'unknown type'}); not shown]")
                shown.append(ResourceContent(str(uri), str(uri), mime))
            case EmbeddedResource(
                resource=TextResourceContents(uri=uri, text=body, mime_type=mime)
            ):
                texts.append(f"Resource {uri}:\n{body}")
                shown.append(ResourceContent(str(uri), str(uri), mime, body))
            case AudioContent(mime_type=mime):
                texts.append(f"[{mime} audio; not shown]")
            case _:
                texts.append(f"[{type(block).__name__}; not shown]")
    if not texts and result.structured_content is not None:
        structured = json.dumps(result.structured_content, ensure_ascii=False, sort_keys=True)
        texts.append(structured)
        shown.append(TextContent(structured))
    text = "\n\n".join(texts) or ("(no output)" if not images else "")
    if len(text) > MAX_TEXT_CHARS:
        text = text[:MAX_TEXT_CHARS] + f"\n[truncated: {len(text)} characters in all]"
    return Converted(text, tuple(images), tuple(shown), result.is_error)
