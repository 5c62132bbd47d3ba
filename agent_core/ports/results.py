"""What a command came to: ``CommandResult``, shared by every runner and the tools."""

from __future__ import annotations

import signal

from msgspec import Struct


class CommandResult(Struct, frozen=True):
    output: str
    exit_code: int | None  # None while running, or when killed by a signal
    signal: str | None = None
    truncated: bool = False
    timed_out: bool = False
    waiting: bool = False  # running, and blocked reading its terminal (interactive only)

    @property
    def running(self) -> bool:
        return self.exit_code is None and self.signal is None


def command_result(
    code: int | None, text: str, truncated: bool, timed_out: bool = False
) -> CommandResult:
    """A result from a return code (negative: the signal that killed it)."""
    sig = signal.Signals(-code).name if code is not None and code < 0 else None
    return CommandResult(text, code if sig is None else None, sig, truncated, timed_out)
