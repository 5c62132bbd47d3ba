"""The built-in tools' argument models: their validators built at first use, their schemas made
ahead.

Every session's first model request sends each tool's JSON schema. pydantic builds a model's
validator as its class is made (~0.5 ms) and makes its JSON schema from that (~0.7 ms): ~20 ms
of a process's first prompt for the twenty models of the built-in tools. So ``Arguments``
leaves the validator to the first call that validates (``defer_build``), and the schemas are
made ahead into ``argument_schemas.json``, read once (~0.2 ms). ``tools/gen_tool_schemas.py``
writes the file (``make tool-schemas``); a test fails when it differs from what pydantic makes
of the models now. A model the file does not name (a plugin's) has its schema made by pydantic.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel, ConfigDict

MADE = Path(__file__).with_name("argument_schemas.json")


class Arguments(BaseModel):
    """The base of a built-in tool's argument model, and of the models inside one."""

    model_config = ConfigDict(defer_build=True)


def schema_key(model: type[BaseModel]) -> str:
    """How ``argument_schemas.json`` names ``model``: its module and qualified name."""
    return f"{model.__module__}.{model.__qualname__}"


def made_schema(model: type[BaseModel]) -> dict[str, Any] | None:
    """``model``'s JSON schema as made ahead, or None (not one of the built-in tools')."""
    if not issubclass(model, Arguments):
        return None
    return _made().get(schema_key(model))


@functools.cache
def _made() -> dict[str, dict[str, Any]]:
    try:
        made = json.loads(MADE.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # a broken install: pydantic makes them, as before
        return {}
    return cast(dict[str, dict[str, Any]], made) if isinstance(made, dict) else {}
