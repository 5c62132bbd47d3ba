"""The scripted model as ``heron acp`` reads it: a script file of replies, named by HERON_MODEL."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any


def call(name: str, **arguments: Any) -> list[dict[str, Any]]:
    """A reply that calls tool ``name`` with ``arguments``."""
    return [{"tool_call": {"name": name, "arguments": arguments}}]


def scripted(env: dict[str, str], tmp_path: Path, *replies: list[dict[str, Any]]) -> dict[str, str]:
    """``env`` with a model that answers ``replies`` in order, then "done"."""
    script = tmp_path / f"script-{time.monotonic_ns()}.json"
    script.write_text(
        json.dumps({"rules": [{"match": "", "replies": [*replies, [{"text": "done"}]]}]})
    )
    return {**env, "HERON_MODEL": f"scripted:{script}"}
