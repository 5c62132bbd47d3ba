"""The parts of a shell command line that ``shell.py`` builds from its parse tree: words,
redirections, simple commands and the line that holds them. Plain values, no grammar.
"""

from __future__ import annotations

from collections.abc import Iterator

from msgspec import Struct
from msgspec.structs import replace


class Word(Struct, frozen=True):
    """One word as written and, when it does not expand at run time, its value."""

    source: str
    value: str | None  # None: its value is only known at run time

    @property
    def literal(self) -> bool:
        return self.value is not None

    @property
    def text(self) -> str:
        """The value when known, else the text as written (to search for names in it)."""
        return self.value if self.value is not None else self.source


class Redirect(Struct, frozen=True):
    operator: str  # ">", ">>", "<", "&>", ">&", "<<", "<<-", "<<<", …
    target: Word | None  # the file (or descriptor); None for heredocs
    body: str | None = None  # what a heredoc or herestring feeds in
    body_expands: bool = False  # the body holds expansions, so its content is only known later
    substituted: bool = False  # its target is a process substitution: ``< <(cmd)``
    feeder: SimpleCommand | None = None  # that substitution's command, when it is one simple one

    @property
    def writes(self) -> bool:
        """Sends output to a file (not to a descriptor or a harmless device)."""
        if self.operator not in (">", ">>", "&>", "&>>", ">|", "<>", ">&"):
            return False
        if self.target is None or self.target.value is None:
            return True
        target = self.target.value
        if self.operator == ">&" and (target.isdigit() or target == "-"):
            return False
        return target not in ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty")

    @property
    def feeds_input(self) -> bool:
        return self.operator in ("<<", "<<-", "<<<")


class SimpleCommand(Struct, frozen=True):
    words: tuple[Word, ...]  # the program and its arguments
    assignments: tuple[tuple[str, Word], ...] = ()  # NAME=value before the program
    redirects: tuple[Redirect, ...] = ()
    piped: bool = False  # its standard input is the output of another command
    upstream: SimpleCommand | None = None  # that command, when it is a simple one

    @property
    def program(self) -> Word | None:
        return self.words[0] if self.words else None

    def fed(self) -> SimpleCommand:
        """``cmd < <(producer)`` reads what the producer prints, as ``producer | cmd`` does."""
        sub = next((r for r in self.redirects if r.operator == "<" and r.substituted), None)
        return self if sub is None else replace(self, piped=True, upstream=sub.feeder)


class CommandLine(Struct, frozen=True):
    """Everything that runs in one line of shell, in source order."""

    commands: tuple[SimpleCommand, ...]
    redirects: tuple[Redirect, ...]  # every redirection, those of compound statements included
    functions: tuple[tuple[str, tuple[str, ...]], ...] = ()  # name -> programs its body calls
    problems: tuple[str, ...] = ()  # why parts of it cannot be read
    arithmetic: bool = False  # it evaluates variables arithmetically (bash may run their text)


def programs(line: CommandLine) -> Iterator[str]:
    """The program names a line runs directly, as written (for messages and tests)."""
    for command in line.commands:
        if command.program is not None:
            yield command.program.text
