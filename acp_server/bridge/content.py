"""Pure translation of ACP prompt content blocks into the core's user message parts.

Linked and embedded resources become clearly delimited context in the user message; the caller
reads linked files first and passes their text in ``linked``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_core.messages import ImagePart, TextPart, UserPart


class UnsupportedContent(ValueError):
    """A block the session cannot take (its capability was not advertised)."""


def linked_uris(blocks: Sequence[Mapping[str, Any]]) -> list[str]:
    """The ``resource_link`` URIs whose content the caller should read."""
    return [b["uri"] for b in blocks if b.get("type") == "resource_link"]


def from_prompt(
    blocks: Sequence[Mapping[str, Any]], linked: Mapping[str, str], *, images: bool = False
) -> tuple[UserPart, ...]:
    parts: list[UserPart] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            parts.append(TextPart(block["text"]))
        elif kind == "resource_link":
            text = linked.get(block["uri"], "(not readable)")
            parts.append(TextPart(_context(block["uri"], block.get("name"), text)))
        elif kind == "resource":
            parts.append(TextPart(_embedded(block["resource"])))
        elif kind == "image" and images:
            parts.append(ImagePart(block["data"], block["mimeType"]))
        elif kind == "image":
            raise UnsupportedContent(
                "image content: the model cannot see images (for a model Heron does not know, "
                'set images = true under [models."<provider>:<model>"] in config.toml)'
            )
        else:
            raise UnsupportedContent(f"{kind} content is not supported by this agent")
    return tuple(parts)


def _embedded(resource: Mapping[str, Any]) -> str:
    uri = resource["uri"]
    if "text" in resource:
        return _context(uri, None, resource["text"])
    mime = resource.get("mimeType") or "unknown type"
    size = len(resource.get("blob", "")) * 3 // 4
    return _context(uri, None, f"(binary content, {mime}, about {size} bytes; not shown)")


def _context(uri: str, name: str | None, text: str) -> str:
    label = f' name="{name}"' if name else ""
    return f'<context uri="{uri}"{label}>\n{text}\n</context>'
