"""Interactive programs: each in a pseudo-terminal of its own, driven by what the model sends.

A session's interactive programs are held by ``interactive.WithTerminals`` (background
processes like the others, released with them). Each runs as the command line
the session's launcher built (the sandbox, then ``with_terminal``'s small Python, then the
shell), with the pseudo-terminal's slave side as stdin, stdout and stderr, in a session and
process group of its own, and dies as a group (``terminate_group``) on kill, session end or
cancel.

The controlling terminal: bubblewrap's ``--new-session`` detaches the sandboxed command from
any terminal (so it cannot push input into the user's), so the terminal is claimed inside,
by ``with_terminal``'s program: ``setsid`` if need be, then ``TIOCSCTTY`` on its stdin, then
``exec``. The program then owns its own pseudo-terminal: Ctrl-C reaches its foreground
process group as SIGINT, and ``/dev/tty`` is the terminal the model types into.

A thread per program reads the master side as output arrives (so a chatty program never
blocks on a full terminal buffer), keeping the last ``limit`` bytes, raw: the terminal tool
makes them the text a person would read (``tools.screen.plain_text``), as it does every
command's output.
"""

from __future__ import annotations

import fcntl
import os
import select
import struct
import sys
import termios
import threading
import time
from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path

import anyio
import anyio.abc
import anyio.to_thread

from agent_core.errors import ToolError
from agent_core.ports.groups import terminate_group
from agent_core.ports.results import CommandResult, command_result
from agent_core.ports.waiting import waiting_for_input

COLUMNS, ROWS = 120, 40
TERM = "xterm-256color"
KILL_GRACE_S = 2.0
READ_POLL_S = 0.1  # how soon the reader thread notices it is asked to stop
SETTLE_S = 3.0  # the longest a start, a send or a look waits for the output to settle
SETTLE_POLL_S = 0.05
SEND_WAIT_S = 5.0  # input the program does not read within this long is not all sent
SETTLED_QUIET_S = 0.2  # blocked reading, nothing printed nor sent for this long: settled
QUIET_S = 1.0  # where /proc cannot tell: nothing printed for this long counts as waiting
CLAIM_TERMINAL = (
    "import os, sys, fcntl, termios\n"
    "if os.getsid(0) != os.getpid(): os.setsid()\n"
    "fcntl.ioctl(0, termios.TIOCSCTTY, 0)\n"
    "os.execvp(sys.argv[1], sys.argv[1:])\n"
)


def with_terminal(argv: Sequence[str]) -> list[str]:
    """``argv`` run so that its stdin, a pseudo-terminal, becomes its controlling terminal (in
    Heron's own Python, isolated from the user's ``PYTHON*`` variables)."""
    return [sys.executable, "-I", "-S", "-c", CLAIM_TERMINAL, *argv]


class PtyProcess:
    """One program in a pseudo-terminal, and the tail of what it printed."""

    def __init__(self, process: anyio.abc.Process, master: int, limit: int) -> None:
        self.process = process
        self._master = master
        self._limit = limit
        self._lock = threading.Lock()
        self._buffer = bytearray()
        self._dropped = False
        self._printed_at = time.monotonic()
        self._stop = threading.Event()
        self._drained = threading.Event()  # the slave side is closed: nothing more to read
        self._closed = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @classmethod
    async def spawn(
        cls, argv: Sequence[str], *, cwd: Path, environment: Mapping[str, str], limit: int
    ) -> PtyProcess:
        master, slave = os.openpty()
        try:
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
            process = await anyio.open_process(
                list(argv),
                cwd=cwd,
                env={**environment, "TERM": TERM, "COLUMNS": str(COLUMNS), "LINES": str(ROWS)},
                stdin=slave,
                stdout=slave,
                stderr=slave,
                start_new_session=True,  # its own process group, killed as a whole
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)  # the program holds it now; its end reads as EIO on the master
        os.set_blocking(master, False)  # a send never blocks the event loop
        return cls(process, master, limit)

    @property
    def ended(self) -> bool:
        return self.process.returncode is not None and self._drained.is_set()

    def waiting(self) -> bool:
        """Whether it is blocked reading its terminal (``ports.waiting``), or, where that cannot
        be told, has printed nothing for ``QUIET_S`` and still runs."""
        if self.process.returncode is not None or self._closed:
            return False
        seen = waiting_for_input(self._master)
        if seen is None:
            return self._quiet() >= QUIET_S
        return seen and self._quiet() >= SETTLED_QUIET_S

    async def settle(self, longest: float = SETTLE_S) -> None:
        """Wait until it ends, waits for input or has printed nothing for ``QUIET_S``, at most
        ``longest`` seconds."""
        deadline = time.monotonic() + longest
        while time.monotonic() < deadline and not self._closed:
            if self.ended or self.waiting() or self._quiet() >= QUIET_S:
                return
            await anyio.sleep(SETTLE_POLL_S)

    async def send(self, data: bytes) -> None:
        if self._closed or self.process.returncode is not None:
            raise ToolError("It has ended: there is nothing to send input to.")
        view = memoryview(data)
        deadline = time.monotonic() + SEND_WAIT_S
        while view:
            try:
                written = os.write(self._master, view)
            except BlockingIOError:  # the terminal's buffer is full: the program is not reading
                if time.monotonic() > deadline:
                    raise ToolError(
                        f"It stopped reading: {len(view)} bytes of the input were not sent."
                    ) from None
                await anyio.sleep(SETTLE_POLL_S)
                continue
            except OSError as exc:
                raise ToolError(f"Could not send the input: {exc.strerror}") from exc
            view = view[written:]
        with self._lock:  # the input reaches the program a moment later: quiet counts from here
            self._printed_at = time.monotonic()

    def result(self) -> CommandResult:
        text, dropped = self.printed()
        code = self.process.returncode
        if code is not None:
            return command_result(code, text, dropped)
        return CommandResult(text, None, truncated=dropped, waiting=self.waiting())

    def printed(self) -> tuple[str, bool]:
        """What it printed (the last ``limit`` bytes, escape sequences and all), and whether
        the start was cut."""
        with self._lock:
            raw = bytes(self._buffer)
            dropped = self._dropped
        return raw.decode("utf-8", errors="replace"), dropped

    async def close(self) -> None:
        """Kill its process group (if it still runs) and free the terminal; safe twice."""
        with anyio.CancelScope(shield=True):
            await terminate_group(self.process, KILL_GRACE_S)
            if self._closed:
                return
            self._stop.set()
            await anyio.to_thread.run_sync(self._reader.join)
            self._closed = True
            os.close(self._master)

    def _quiet(self) -> float:
        """Seconds since it last printed or was sent input."""
        with self._lock:
            return time.monotonic() - self._printed_at

    def _read(self) -> None:
        """The reader thread: the master side drained into the buffer until the program's end
        (EIO) or ``close``. Only ``close`` closes the descriptor, after this has returned."""
        while not self._stop.is_set():
            with suppress(InterruptedError):
                ready, _, _ = select.select([self._master], [], [], READ_POLL_S)
                if not ready:
                    continue
            try:
                chunk = os.read(self._master, 65536)
            except BlockingIOError:
                continue
            except OSError:  # EIO: every slave descriptor is closed, the program is gone
                chunk = b""
            if not chunk:
                self._drained.set()
                return
            with self._lock:
                self._buffer += chunk
                if len(self._buffer) > self._limit:
                    del self._buffer[: len(self._buffer) - self._limit]
                    self._dropped = True
                self._printed_at = time.monotonic()
