from __future__ import annotations

from acp_server.jsonrpc.framing import LineSplitter, OversizedLine, encode


def test_lines_split_across_chunks_are_joined() -> None:
    splitter = LineSplitter()
    assert splitter.feed(b'{"a":') == []
    assert splitter.feed(b'1}\n{"b"') == [b'{"a":1}']
    assert splitter.feed(b":2}\n\n") == [b'{"b":2}', b""]
    assert splitter.finish() == []


def test_a_final_line_without_newline_counts() -> None:
    splitter = LineSplitter()
    assert splitter.feed(b'{"a":1}') == []
    assert splitter.finish() == [b'{"a":1}']


def test_an_oversized_line_is_dropped_whole_and_the_next_line_survives() -> None:
    splitter = LineSplitter(max_line_bytes=10)
    assert splitter.feed(b"x" * 8) == []
    assert splitter.feed(b"x" * 8) == []
    assert splitter.feed(b'xx\n{"ok":1}\n') == [OversizedLine(18), b'{"ok":1}']


def test_encode_is_one_utf8_line_even_with_newlines_and_surrogates() -> None:
    frame = encode({"text": "two\nlines é中文 😀"})
    assert b"\n" not in frame
    assert "é中文 😀".encode() in frame
    lone = encode({"text": "bad \udcff surrogate"})
    lone.decode("utf-8")  # valid UTF-8: the surrogate is escaped
    assert b"\\udcff" in lone
