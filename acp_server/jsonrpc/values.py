"""Typed views of decoded JSON, so strict type checking survives ``json.loads``."""

from __future__ import annotations

from typing import Any, cast


def as_object(value: Any) -> dict[str, Any] | None:
    """``value`` if it is a JSON object, else None."""
    return cast(dict[str, Any], value) if isinstance(value, dict) else None
