"""Logging to stderr and ``$HERON_HOME/logs/heron.log``; raw-message tracing with HERON_TRACE=1.

Every line passes through ``redact`` on its way out, so provider keys and scrubbed secrets never
reach a log, traced messages included.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
TRACE_LIMIT = 4000  # characters of a traced message kept in the log
ROTATE_AT_BYTES = 5_000_000


class _Redacting(logging.Formatter):
    def __init__(self, fmt: str, redact: Callable[[str], str]) -> None:
        super().__init__(fmt)
        self._redact = redact

    def format(self, record: logging.LogRecord) -> str:
        return self._redact(super().format(record))


def setup_logging(
    log_dir: Path, level: str, *, trace: bool, redact: Callable[[str], str] = str
) -> None:
    root = logging.getLogger("heron")
    root.setLevel(logging.DEBUG if trace else level)
    root.propagate = False
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setLevel(logging.WARNING if not trace else logging.DEBUG)
    stderr.setFormatter(_Redacting("heron: %(levelname)s %(message)s", redact))
    root.addHandler(stderr)
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
        path = log_dir / "heron.log"
        _rotate(path)
        file = _LogFile(path, encoding="utf-8")
    except OSError as exc:
        root.warning("cannot write logs to %s: %s", log_dir, exc)
        return
    file.setFormatter(_Redacting(FORMAT, redact))
    root.addHandler(file)


class _LogFile(logging.FileHandler):
    """The log file, given up the first time it cannot be written (a full disk, a size limit),
    with one line on stderr saying so: not a traceback on stderr for every later line."""

    def __init__(self, path: Path, encoding: str) -> None:
        super().__init__(path, encoding=encoding)
        self._given_up = False

    def emit(self, record: logging.LogRecord) -> None:
        if not self._given_up:
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:
        failure = sys.exc_info()[1]
        if not isinstance(failure, OSError):
            super().handleError(record)
            return
        self._given_up = True
        stream: IO[str] | None = self.stream
        self.stream = None  # type: ignore[assignment]  # closed for good
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
        logging.getLogger("heron").warning(
            "cannot write %s: %s; logging to stderr only",
            self.baseFilename,
            failure.strerror or failure,
        )


def _rotate(path: Path) -> None:
    """At start, move a large log aside (one generation kept); several editors may share it."""
    with contextlib.suppress(FileNotFoundError):
        if path.stat().st_size > ROTATE_AT_BYTES:
            path.replace(path.with_suffix(".log.1"))


def trace_message(direction: str, frame: bytes) -> None:
    """The connection's trace hook: one log line per raw message, both directions."""
    text = frame.decode("utf-8", errors="replace")
    if len(text) > TRACE_LIMIT:
        text = f"{text[:TRACE_LIMIT]}… ({len(frame)} bytes)"
    logging.getLogger("heron.trace").debug("%s %s", direction, text)
