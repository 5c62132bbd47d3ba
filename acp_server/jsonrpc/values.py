"""Typed views of decoded JSON, so strict type checking survives ``json.loads``."""

from __future__ import annotations

import re
from typing import Any, cast

# No ACP message nests anywhere near this deep; deeper ones are refused before any code walks
# them, so nothing downstream (validation, storage, logging) can run out of stack.
MAX_NESTING = 64


def as_object(value: Any) -> dict[str, Any] | None:
    """``value`` if it is a JSON object, else None."""
    return cast(dict[str, Any], value) if isinstance(value, dict) else None


def not_a_json_constant(constant: str) -> Any:
    """``json.loads``' ``parse_constant``: Python's decoder takes ``NaN`` and ``Infinity``; JSON
    has no such values, so they are a ``ValueError`` like any other bad JSON."""
    raise ValueError(f"{constant} is not a JSON value")


def deeper_than(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest more than ``limit`` levels in ``value``.

    Iterative, so a value that only just fitted the decoder's recursion cannot exhaust the
    stack of whatever walks it next.
    """
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: Any = cast(dict[str, Any], item).values()
        elif isinstance(item, list):
            children = cast(list[Any], item)
        else:
            continue
        if depth >= limit:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False


_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def may_hold_lone_surrogates(line: bytes) -> bool:
    """A cheap test on the raw line (two byte searches; a 50 MB image costs ~5 ms, where a
    pattern search cost ~230 ms); False means its strings are all valid Unicode. A lone
    surrogate is spelled with an escape (a backslash) or raw (an 0xED byte)."""
    return b"\\" in line or b"\xed" in line


def without_lone_surrogates(value: Any) -> Any:
    """``value`` with every lone UTF-16 surrogate (in keys and strings) replaced by U+FFFD.

    JSON can spell them (``"\\ud800"``) but they are not Unicode text: nothing can encode them,
    not SQLite, not a file name, not a log. Pairs were already joined by the decoder.
    """
    if isinstance(value, str):  # ASCII (an image's base64, say) is known at once to hold none
        return value if value.isascii() else _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {
            without_lone_surrogates(key): without_lone_surrogates(item)
            for key, item in cast(dict[str, Any], value).items()
        }
    if isinstance(value, list):
        return [without_lone_surrogates(item) for item in cast(list[Any], value)]
    return value
