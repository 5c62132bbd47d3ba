"""What a hook reads on its stdin: one JSON object describing the moment it runs for. Pure.

Every hook gets ``event``, ``hook`` (its name), ``session_id``, ``workspace_root`` and ``mode``
(the approval mode). Then, by event:

- ``before_tool``: ``tool_name``, ``arguments`` (the call's arguments as the model gave them)
- ``after_tool``: the same, and ``result`` (the text the model is about to read, cut at
  ``RESULT_CHARS``) and ``is_error``
- ``after_edit``: ``tool_name``, ``arguments``, ``paths`` (absolute paths of the files the call
  changed; also the hook's arguments)
- ``prompt_submitted``: ``prompt`` (the prompt's text)
- ``turn_ended``: ``stop_reason`` (``end_turn``, ``cancelled``, ``max_turn_requests``, ...)
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

RESULT_CHARS = 100_000


class Where(NamedTuple):
    """The session a hook runs for."""

    session_id: str
    workspace_root: Path
    mode: str


def tool_call(name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    return {"tool_name": name, "arguments": dict(arguments)}


def tool_result(name: str, arguments: Mapping[str, Any], text: str, error: bool) -> dict[str, Any]:
    return {**tool_call(name, arguments), "result": text[:RESULT_CHARS], "is_error": error}


def edited(name: str, arguments: Mapping[str, Any], paths: Sequence[Path]) -> dict[str, Any]:
    return {**tool_call(name, arguments), "paths": [str(p) for p in paths]}


def prompt(text: str) -> dict[str, Any]:
    return {"prompt": text}


def turn(stop_reason: str) -> dict[str, Any]:
    return {"stop_reason": stop_reason}


def encode(event: str, hook: str, where: Where, details: Mapping[str, Any]) -> bytes:
    """The whole object, as the bytes written to the hook's stdin."""
    head = {
        "event": event,
        "hook": hook,
        "session_id": where.session_id,
        "workspace_root": str(where.workspace_root),
        "mode": where.mode,
    }
    return json.dumps({**head, **details}, default=str).encode("utf-8")
