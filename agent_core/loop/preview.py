"""Best-effort reading of tool arguments while they are still streaming, for live previews."""

from __future__ import annotations

import json
from typing import Any, cast


def partial_arguments(fragment: str) -> dict[str, Any] | None:
    """The object in an unfinished JSON text, closing open strings and brackets; None if unsure.

    ``{"path": "src/ap`` reads as ``{"path": "src/ap"}``, so the editor can title the call
    "Read src/ap..." before the model has finished writing it.
    """
    text = fragment.strip()
    if not text.startswith("{"):
        return None
    closers: list[str] = []
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            closers.append("}" if char == "{" else "]")
        elif char in "}]" and closers:
            closers.pop()
    candidate = text[:-1] if escaped else text
    candidate += '"' if in_string else ""
    for attempt in (candidate, candidate.rstrip(", \n\t:"), candidate + "null"):
        try:
            value: Any = json.loads(attempt + "".join(reversed(closers)))
        except json.JSONDecodeError:
            continue
        return cast(dict[str, Any], value) if isinstance(value, dict) else None
    return None
