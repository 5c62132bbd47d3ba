"""Compact JSON text that can always be written as UTF-8: how Heron writes the JSON it stores
(the session store) and sends (request bodies).

Text goes as it is, except that a lone surrogate (half an emoji, as a provider's stream may
cut one) is written as its escape, which reads back as it was: UTF-8 cannot hold it, so SQLite
and a request body would fail on it.
"""

from __future__ import annotations

import json
from typing import Any


def compact_json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if text.isascii():
        return text
    try:
        text.encode()
    except UnicodeEncodeError:
        return json.dumps(value, separators=(",", ":"))
    return text
