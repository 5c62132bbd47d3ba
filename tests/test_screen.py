"""Command output reduced to the text a terminal shows (``agent_core.tools.screen``)."""

from __future__ import annotations

import time

import pytest

from agent_core.tools.screen import plain_text

ESC = "\x1b"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain\ttext\n", "plain\ttext\n"),
        (f"{ESC}[32mPASSED{ESC}[0m tests/test_x.py", "PASSED tests/test_x.py"),
        (f"{ESC}[1;38;5;196mred{ESC}[39;49m {ESC}[38:2::255:0:0mtrue{ESC}[m", "red true"),
        # OSC 8 hyperlinks (both terminators) and window titles
        (f"see {ESC}]8;;https://x.test/a{ESC}\\the docs{ESC}]8;;{ESC}\\ now", "see the docs now"),
        (f"{ESC}]8;id=1;https://x.test\x07link{ESC}]8;;\x07", "link"),
        (f"{ESC}]0;my title\x07done", "done"),
        (f"{ESC}P1$r0m{ESC}\\after", "after"),  # DCS
        (f"{ESC}(B{ESC}={ESC}[?25l{ESC}[?1049hhidden cursor{ESC}[?25h", "hidden cursor"),
        ("bell\x07 null\x00 del\x7f ff\x0c", "bell null del ff"),
        # carriage-return redraws
        ("10%\r50%\r100%\n", "100%\n"),
        ("Downloading  10%\rDownloading 100%\r\ndone\r\n", "Downloading 100%\ndone\n"),
        ("a\r\nb\r\n", "a\nb\n"),
        ("abcdef\rXY", "XYcdef"),  # what the terminal shows: the rest of the line stays
        ("long line here\r\x1b[Kshort", "short"),
        ("long line here\r\x1b[2Kshort\n", "short\n"),
        ("typo\b\bpe", "type"),
        ("\b\bstart", "start"),
        # cursor moves: redraws of several lines (pytest-xdist, npm, cargo)
        (
            "[1/2] a\n[2/2] b\n\x1b[2A\x1b[K[1/2] a ok\n\x1b[K[2/2] b ok\n",
            "[1/2] a ok\n[2/2] b ok\n",
        ),
        ("one\ntwo\nthree\n\x1b[3F\x1b[Jall done\n", "all done\n"),
        ("abc\x1b[2Dz", "azc"),
        ("abc\x1b[1Gz\x1b[3Cq", "zbc q"),
        ("abc\x1b7\nnext\x1b8!", "abc!\nnext"),
        ("x\x1b[5Cy", "x     y"),
        ("abc\x1b[2D\x1b[1K!", " !c"),
        ("\x1b[10Aup\n", "up\n"),
        ("top\n\x1b[5Bdown", "top\ndown"),  # a move down adds no line
        ("a\nb\nc\x1b7\x1b[2F\x1b[J\x1b8!", " !"),  # restored below what was erased
        ("x\x1b[999999999Cy\x1b[999999999;999999999Hz", "x" + " " * 255 + "yz"),
        # cut short: no escape bytes survive
        ("text\x1b[3", "text"),
        ("text\x1b]0;title without end", "text"),
        ("text\x1b", "text"),
        ("\x9b31mc1 csi\x9b0m", "c1 csi"),
    ],
)
def test_escapes_and_redraws_become_the_text_a_person_sees(raw: str, shown: str) -> None:
    assert plain_text(raw) == shown


def test_no_escape_byte_is_ever_left() -> None:
    raw = "".join(chr(c) for c in range(0x00, 0xA0)) * 3 + "\x1b[" + "\x1b]" + "\x1b"
    cleaned = plain_text(raw)
    assert not any(0x00 <= ord(c) < 0x20 and c not in "\n\t" for c in cleaned)
    assert not any(0x7F <= ord(c) < 0xA0 for c in cleaned)


def test_thirty_kilobytes_of_coloured_progress_output_take_little_time() -> None:
    line = f"{ESC}[32m.{ESC}[0m" * 20 + " [ 42%]\r" + f"{ESC}]8;;u{ESC}\\x{ESC}]8;;{ESC}\\\n"
    raw = (line * (30_000 // len(line) + 1))[:30_000]
    broken = "\x1b[" + "1;" * 15_000  # a CSI that never ends: no backtracking
    started = time.perf_counter()
    cleaned = plain_text(raw)
    plain_text(broken)
    moved = plain_text("\x1b[99999999C.\x1b[99999999B" * 2_000)  # moves stop at the edges
    elapsed = time.perf_counter() - started
    assert "\x1b" not in cleaned and cleaned.startswith("x" + "." * 19)
    assert len(moved) < 3_000
    assert elapsed < 2.0  # generous: a linear pass takes a few ms
