"""Typed views of decoded JSON, so strict type checking survives ``json.loads``."""

from __future__ import annotations

import re
from typing import Any, cast


def as_object(value: Any) -> dict[str, Any] | None:
    """``value`` if it is a JSON object, else None."""
    return cast(dict[str, Any], value) if isinstance(value, dict) else None


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
# What a lone surrogate looks like in a line: a \uD800-\uDFFF escape or its raw (invalid) bytes.
_MAYBE_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")


def may_hold_lone_surrogates(line: bytes) -> bool:
    """A cheap test on the raw line; False means its strings are all valid Unicode."""
    return _MAYBE_SURROGATE.search(line) is not None


def without_lone_surrogates(value: Any) -> Any:
    """``value`` with every lone UTF-16 surrogate (in keys and strings) replaced by U+FFFD.

    JSON can spell them (``"\\ud800"``) but they are not Unicode text: nothing can encode them,
    not SQLite, not a file name, not a log. Pairs were already joined by the decoder.
    """
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {
            without_lone_surrogates(key): without_lone_surrogates(item)
            for key, item in cast(dict[str, Any], value).items()
        }
    if isinstance(value, list):
        return [without_lone_surrogates(item) for item in cast(list[Any], value)]
    return value
