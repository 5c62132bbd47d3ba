"""The keys the model can press in a pseudo-terminal, and the bytes a terminal sends for each.

The bytes are what xterm sends (the ``TERM`` interactive programs are given), in its normal
cursor mode: the arrows as ``ESC [ A``…; the control keys as the ASCII control characters
that the terminal's line discipline turns into signals (Ctrl-C: SIGINT) or end of input
(Ctrl-D). Enter is a carriage return, as a keyboard sends it: programs in raw mode (menus,
line editors) wait for ``\\r``, and a terminal in line mode turns it into ``\\n`` itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

Key = Literal[
    "Enter",
    "Tab",
    "Escape",
    "Backspace",
    "Space",
    "Up",
    "Down",
    "Right",
    "Left",
    "Home",
    "End",
    "PageUp",
    "PageDown",
    "Delete",
    "Ctrl-C",
    "Ctrl-D",
    "Ctrl-Z",
    "Ctrl-L",
    "Ctrl-U",
]

KEYS: dict[Key, bytes] = {
    "Enter": b"\r",
    "Tab": b"\t",
    "Escape": b"\x1b",
    "Backspace": b"\x7f",  # DEL: what xterm and the Linux console send
    "Space": b" ",
    "Up": b"\x1b[A",
    "Down": b"\x1b[B",
    "Right": b"\x1b[C",
    "Left": b"\x1b[D",
    "Home": b"\x1b[H",
    "End": b"\x1b[F",
    "PageUp": b"\x1b[5~",
    "PageDown": b"\x1b[6~",
    "Delete": b"\x1b[3~",
    "Ctrl-C": b"\x03",  # interrupt: SIGINT to the foreground process group
    "Ctrl-D": b"\x04",  # end of input at the start of a line
    "Ctrl-Z": b"\x1a",  # suspend: SIGTSTP
    "Ctrl-L": b"\x0c",  # redraw
    "Ctrl-U": b"\x15",  # erase the line typed so far
}


def keystrokes(text: str, keys: Sequence[Key] = ()) -> bytes:
    """``text`` as typed (each newline pressed as Enter), then ``keys`` in order."""
    typed = text.replace("\r\n", "\n").replace("\n", "\r").encode("utf-8")
    return typed + b"".join(KEYS[key] for key in keys)
