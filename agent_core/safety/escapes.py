"""Backslash escapes as bash reads them: inside ``$'…'`` strings, and in what ``echo -e`` and
``printf`` print. Text in, text out; ``shell.py`` reads words with it, ``emitted.py`` output.
"""

from __future__ import annotations

import re

_ANSI_C = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|.)")
_ECHO = re.compile(r"\\(0[0-7]{0,3}|x[0-9A-Fa-f]{1,2}|.)", re.DOTALL)
_SIMPLE = dict(zip("ntrabeEfv", "\n\t\r\a\b\x1b\x1b\f\v", strict=True))


def ansi_c(body: str) -> str:
    """The value of ``$'body'``."""

    def decode(match: re.Match[str]) -> str:
        escape = match.group(1)
        try:
            if escape[0] in "xuU" and len(escape) > 1:
                return chr(int(escape[1:], 16))
            if escape[0] in "01234567":
                return chr(int(escape, 8))
        except (ValueError, OverflowError):
            return "\ufffd"  # no such character: bash prints nothing sensible either
        return _SIMPLE.get(escape, escape)

    return _ANSI_C.sub(decode, body)


def printed(text: str) -> str:
    """What ``echo -e text`` (or a ``printf`` format) prints of ``text``."""

    def decode(match: re.Match[str]) -> str:
        escape = match.group(1)
        if escape[0] == "x" and len(escape) > 1:
            return chr(int(escape[1:], 16))
        if escape[0] == "0":
            return chr(int(escape[1:] or "0", 8))
        return "\\" if escape == "\\" else _SIMPLE.get(escape, "\\" + escape)

    return _ECHO.sub(decode, text)
