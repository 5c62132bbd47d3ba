"""Command output as a person reads it on the terminal: escape sequences and redraws gone.

Programs write for a terminal: colours, hyperlinks, window titles, progress bars redrawn with
``\\r`` and cursor moves, lines erased and written again. The editor's terminal shows all of it
rendered (it gets the raw bytes); the model and the session store get this function's answer,
the text left on the screen, since escape bytes cost tokens, mislead the model and make the
stored conversation unreadable.

The screen is modelled only as far as text needs it: lines of characters, a cursor that
``\\r``, ``\\b``, ``\\n`` and the CSI cursor moves shift, and the CSI erases. Everything else
(colours, modes, OSC titles and links, DCS strings, other escapes, stray control characters)
is dropped. ``\\n`` also returns to the first column, as a terminal shows piped output.
One pass over the input, text taken in runs, so it stays linear however the bytes are mixed.
Pure.
"""

from __future__ import annotations

import re

_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # all but \t and \n
_TEXT = re.compile(r"[^\x00-\x08\x0a-\x1f\x7f-\x9f]+")  # \t is text
_CSI = re.compile(r"([\x30-\x3f]*)[\x20-\x2f]*([\x40-\x7e])")  # parameters, intermediates, final
_OTHER_ESCAPE = re.compile(r"[\x20-\x2f]*[\x30-\x7e]?")  # ESC ( B, ESC =, ESC 7, ...
_STRING_END = re.compile(r"\x07|\x1b\\|\x9c")  # BEL or ST ends OSC, DCS, SOS, PM, APC
_CUT_SHORT = re.compile(r"[\x20-\x3f]*\Z")  # a CSI the output ends inside
_STRINGS = frozenset("]PX^_")  # ESC ] is OSC, ESC P is DCS, ...
_C1_STRINGS = frozenset("\x9d\x90\x98\x9e\x9f")
WIDTH = 256  # how far past a line's end the cursor may go: wider than any terminal


def plain_text(raw: str) -> str:
    """``raw`` as the lines a terminal would show (``\\n``-separated; ``\\t`` kept)."""
    if _CONTROLS.search(raw) is None:
        return raw  # the common case: nothing to render
    screen = _Screen()
    at, end = 0, len(raw)
    while at < end:
        if text := _TEXT.match(raw, at):
            screen.write(text.group())
            at = text.end()
            continue
        char = raw[at]
        at += 1
        if char == "\x1b" and at < end:
            at = _escape(raw, at, screen)
        elif char == "\x9b":
            at = _csi(raw, at, screen)
        elif char in _C1_STRINGS:
            at = _skip_string(raw, at)
        else:
            screen.control(char)
    return screen.text()


def _escape(raw: str, at: int, screen: _Screen) -> int:
    """After an ESC: the sequence applied or skipped; where the text goes on."""
    kind = raw[at]
    if kind == "[":
        return _csi(raw, at + 1, screen)
    if kind in _STRINGS:
        return _skip_string(raw, at + 1)
    if kind == "7":
        screen.save()
    elif kind == "8":
        screen.restore()
    elif kind == "M":
        screen.move(rows=-1)  # reverse index
    found = _OTHER_ESCAPE.match(raw, at)
    return found.end() if found else at


def _csi(raw: str, at: int, screen: _Screen) -> int:
    found = _CSI.match(raw, at)
    if found is None:  # cut short: the rest is the sequence's, never shown
        return len(raw) if _CUT_SHORT.match(raw, at) else at
    screen.csi(found.group(1), found.group(2))
    return found.end()


def _skip_string(raw: str, at: int) -> int:
    found = _STRING_END.search(raw, at)
    return found.end() if found else len(raw)


class _Screen:
    """Lines of characters and a cursor: what a terminal keeps of the text written to it."""

    def __init__(self) -> None:
        self.lines: list[list[str]] = [[]]
        self.row = 0
        self.column = 0
        self.saved = (0, 0)

    def write(self, text: str) -> None:
        line = self.lines[self.row]
        if self.column > len(line):
            line.extend(" " * (self.column - len(line)))
        line[self.column : self.column + len(text)] = text
        self.column += len(text)

    def control(self, char: str) -> None:
        if char == "\n":
            self.row, self.column = self.row + 1, 0
            if self.row == len(self.lines):
                self.lines.append([])
        elif char == "\r":
            self.column = 0
        elif char == "\b":
            self.column = max(self.column - 1, 0)
        # any other control character shows nothing

    def move(self, *, rows: int = 0, columns: int = 0) -> None:
        """Never below the last line (only a newline adds one) nor far past the end of the
        line (a terminal stops at its width): what a move costs is bounded."""
        self.row = min(max(self.row + rows, 0), len(self.lines) - 1)
        self.to_column(self.column + columns)

    def to_column(self, column: int) -> None:
        self.column = min(max(column, 0), max(len(self.lines[self.row]), WIDTH))

    def save(self) -> None:
        self.saved = (self.row, self.column)

    def restore(self) -> None:
        self.row = min(self.saved[0], len(self.lines) - 1)  # lines below may be erased since
        self.to_column(self.saved[1])

    def csi(self, parameters: str, final: str) -> None:
        if parameters.startswith(("?", ">", "<", "=")):
            return  # private modes: cursor shown, alternate screen, ...
        numbers = [int(p) if p.isdigit() else 0 for p in parameters.split(";")]
        count = max(numbers[0], 1)
        if final in _MOVES:
            rows, columns, first_column = _MOVES[final]
            self.move(rows=rows * count, columns=columns * count)
            if first_column:
                self.column = 0
        elif final == "G" or final == "`":
            self.to_column(count - 1)
        elif final in "Hf":  # the row is the screen's, unknown here: the column is kept
            self.to_column(max(numbers[1], 1) - 1 if len(numbers) > 1 else 0)
        elif final == "K":
            self.erase_line(numbers[0])
        elif final == "J" and numbers[0] == 0:
            self.erase_line(0)
            del self.lines[self.row + 1 :]
        elif final == "s":
            self.save()
        elif final == "u":
            self.restore()
        # colours (m), modes, scrolling, the rest of J: nothing to the text

    def erase_line(self, how: int) -> None:
        line = self.lines[self.row]
        if how == 0:
            del line[self.column :]
        elif how == 1:
            line[: self.column + 1] = " " * min(self.column + 1, len(line))
        elif how == 2:
            line.clear()

    def text(self) -> str:
        return "\n".join("".join(line) for line in self.lines)


_MOVES = {  # CSI final -> (rows, columns, to the first column) per count
    "A": (-1, 0, False),
    "B": (1, 0, False),
    "C": (0, 1, False),
    "D": (0, -1, False),
    "E": (1, 0, True),
    "F": (-1, 0, True),
}
