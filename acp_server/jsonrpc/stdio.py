"""The process's stdin and stdout: the only module that touches its stdout.

``claim_stdio()`` takes file descriptor 1 for the protocol and points fd 1 (and ``sys.stdout``)
at stderr, so a stray ``print`` in any library, or a child process that inherits stdout, can
never corrupt the ACP stream. Plain descriptors, no event loop: the front door answers
``initialize`` with these before the loop is loaded; ``transport`` does the rest.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import TextIO

READ_CHUNK = 1024 * 1024


def claim_stdio() -> tuple[int, int]:
    """Reserve stdin and stdout for the protocol, as new descriptors (input, output), and send
    everything else to stderr."""
    sys.stdout.flush()
    out_fd = os.dup(1)  # non-inheritable: children never see the protocol stream
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    in_fd = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)  # children must not steal protocol input either
    os.close(null)
    return in_fd, out_fd


def write_blocking(fd: int, frame: bytes) -> None:
    """Write all of ``frame`` to a blocking descriptor: before the transport exists (the front
    door's one answer)."""
    view = memoryview(frame)
    while view:
        view = view[os.write(fd, view) :]


def console() -> TextIO:
    """The terminal, for the human-facing commands (``heron demo``) that do not serve ACP."""
    return sys.stdout


def pollable(fd: int) -> bool:
    """Pipes, sockets and terminals can be polled; regular files and /dev/null cannot."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(fd)
