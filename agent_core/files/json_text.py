"""Compact JSON text that can always be written as UTF-8: how Heron writes the JSON it stores
(the session store) and sends (request bodies); and ``json_object``, how it reads a JSON object
it did not make (a provider's stream, a web API's answer, bundled data) without trusting its
shape.

Text goes as it is, except that a lone surrogate (half an emoji, as a provider's stream may
cut one) is written as its escape, which reads back as it was: UTF-8 cannot hold it, so SQLite
and a request body would fail on it.
"""

from __future__ import annotations

import json
from typing import Any, cast


def compact_json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if text.isascii():
        return text
    try:
        text.encode()
    except UnicodeEncodeError:
        return json.dumps(value, separators=(",", ":"))
    return text


def json_object(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one."""
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}
