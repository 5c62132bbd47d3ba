"""Newline-delimited JSON framing: bytes in, complete lines out; a message out, one line.

Pure and synchronous so it can be tested without I/O. A line longer than ``max_line_bytes``
is dropped whole (its remaining bytes are skipped up to the next newline) and reported as an
``OversizedLine`` so the connection can answer with an error and keep serving.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple

DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024  # ACP clients send base64 images; 50 MiB must pass.


class OversizedLine(NamedTuple):
    """A frame that exceeded the size limit and was discarded."""

    size: int


class LineSplitter:
    """Accumulates chunks and yields complete lines without their trailing newline."""

    def __init__(self, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> None:
        self._max = max_line_bytes
        self._parts: list[bytes] = []
        self._size = 0
        self._skipping = False

    def feed(self, chunk: bytes) -> list[bytes | OversizedLine]:
        """Consume ``chunk``; return the lines it completed, in order."""
        out: list[bytes | OversizedLine] = []
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            self._add(piece)
            if end < 0:
                return out
            out.append(self._take())
            start = end + 1

    def finish(self) -> list[bytes | OversizedLine]:
        """End of input: a final line without a newline still counts."""
        if self._size == 0 and not self._skipping:
            return []
        return [self._take()]

    def _add(self, piece: bytes) -> None:
        if not piece:
            return
        self._size += len(piece)
        if self._skipping:
            return
        if self._size > self._max:
            self._skipping = True
            self._parts.clear()
            return
        self._parts.append(piece)

    def _take(self) -> bytes | OversizedLine:
        line: bytes | OversizedLine
        line = OversizedLine(self._size) if self._skipping else b"".join(self._parts)
        self._parts.clear()
        self._size = 0
        self._skipping = False
        return line


def encode(message: Any) -> bytes:
    """One JSON object on one line, UTF-8 (lone surrogates are escaped, never sent raw)."""
    try:
        return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
    except UnicodeEncodeError:
        return json.dumps(message, separators=(",", ":")).encode()


def notifications(method: str, params: Sequence[bytes]) -> list[bytes]:
    """One notification of ``method`` per item of ``params``, each already JSON (a replay's
    stored updates): framed around it without decoding it."""
    opening = b'{"jsonrpc":"2.0","method":%s,"params":' % encode(method)
    return [opening + item + b"}" for item in params]
