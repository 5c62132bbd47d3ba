"""Reading what ``heron acp`` sends, as a client must: any field may be missing or of the wrong
type, and a wrong one counts as missing."""

from __future__ import annotations

from typing import Any, cast

from acp_server.jsonrpc.values import as_object


def heron_of(message: Any) -> dict[str, Any]:
    """``_meta.heron`` of an ACP object (Heron's own fields), or an empty dict."""
    meta = as_object((as_object(message) or {}).get("_meta")) or {}
    return as_object(meta.get("heron")) or {}


def count(value: Any) -> int | None:
    """A JSON integer (not a boolean), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def objects(value: Any) -> list[dict[str, Any]]:
    """The JSON objects of a list (anything else in it, or a value that is no list: none)."""
    items = cast(list[Any], value) if isinstance(value, list) else []
    return [found for item in items if (found := as_object(item)) is not None]
