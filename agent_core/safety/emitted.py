"""What a simple command writes to its standard output, when its words say so before it runs:
``echo``, ``printf``, ``cat`` of a here-document, here-string or ``/dev/null``, ``:``. None when
only running it would tell.

The judge reads it three ways: text piped into a shell, an interpreter, a database client or
``at`` is judged as code of that language (``echo 'drop table t' | psql``); text written into a
file that the same line then runs is judged as that script (``echo 'rm -r x' > x.sh && sh
x.sh``); and nothing (or only blanks) redirected over a file empties it (``: > f``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agent_core.safety.escapes import printed
from agent_core.safety.shell import SimpleCommand, Word

EMPTY_SOURCES = frozenset({"/dev/null", "/dev/zero"})  # read as a file: nothing, or zeros
_STDIN = ("-", "/dev/stdin", "/dev/fd/0")
_FORMAT = re.compile(r"%(%|[-+ #0]*\d*(?:\.\d+)?[sbdiouxXcqfeEgG])")
_MAX_PASSES = 64  # printf repeats its format while arguments remain


def emitted(command: SimpleCommand | None, depth: int = 0) -> str | None:
    """What ``command`` prints, if its words tell; None if not, or if it is not known."""
    if command is None or depth > 8:
        return None
    if not command.words:
        return ""  # a redirection alone: `> f`
    if any(not w.literal for w in command.words):
        return None
    name = (command.words[0].value or "").rsplit("/", 1)[-1]
    emitter = EMITTERS.get(name)
    return None if emitter is None else emitter(list(command.words[1:]), command, depth)


def _nothing(args: list[Word], command: SimpleCommand, depth: int) -> str | None:
    return ""


def _exec(args: list[Word], command: SimpleCommand, depth: int) -> str | None:
    return "" if not args else None  # `exec > f` only redirects the shell's own output


def _echo(args: list[Word], command: SimpleCommand, depth: int) -> str | None:
    values = [w.value or "" for w in args]
    newline, escapes = True, False
    while values and re.fullmatch(r"-[neE]+", values[0]):
        option = values.pop(0)
        newline = newline and "n" not in option
        escapes = "e" in option if "e" in option or "E" in option else escapes
    text = " ".join(values)
    return (printed(text) if escapes else text) + ("\n" if newline else "")


def _printf(args: list[Word], command: SimpleCommand, depth: int) -> str | None:
    values = [w.value or "" for w in args]
    if values and values[0] == "--":
        values.pop(0)
    if not values or values[0] == "-v":
        return None if values else ""
    template, rest = printed(values[0]), values[1:]
    out: list[str] = []
    for _ in range(_MAX_PASSES):
        text, used = _fill(template, rest)
        out.append(text)
        rest = rest[used:]
        if not rest or not used:
            break
    return "".join(out)


def _fill(template: str, args: list[str]) -> tuple[str, int]:
    """One pass of printf's format over ``args``; how many it used."""
    used = 0

    def one(match: re.Match[str]) -> str:
        nonlocal used
        if match.group(1) == "%":
            return "%"
        used += 1
        return args[used - 1] if used <= len(args) else ""

    return _FORMAT.sub(one, template), used


def _cat(args: list[Word], command: SimpleCommand, depth: int) -> str | None:
    files = [w.value or "" for w in args if not (w.value or "").startswith("-") or w.value == "-"]
    if files and all(f in EMPTY_SOURCES for f in files):
        return ""
    if files and any(f not in _STDIN for f in files):
        return None  # a file's content is not known before it runs
    return stdin_text(command, depth)


def stdin_text(command: SimpleCommand, depth: int = 0) -> str | None:
    """What ``command`` reads on its standard input, when it is known: a here-document or
    here-string, or what the command before it in a pipeline prints."""
    fed = [r for r in command.redirects if r.feeds_input]
    if fed:
        return None if any(r.body_expands for r in fed) else "".join(r.body or "" for r in fed)
    if any(
        r.operator == "<" and r.target and r.target.value in EMPTY_SOURCES
        for r in command.redirects
    ):
        return ""
    return emitted(command.upstream, depth + 1) if command.piped else None


EMITTERS: dict[str, Callable[[list[Word], SimpleCommand, int], str | None]] = {
    "echo": _echo,
    "printf": _printf,
    "cat": _cat,
    ":": _nothing,
    "true": _nothing,
    "false": _nothing,
    "exec": _exec,
}
