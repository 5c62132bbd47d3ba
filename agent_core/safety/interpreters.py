"""Readers of shells and interpreters: the code they run is judged as the line's own, whether
it comes as a string (``sh -c``, ``python -c``, an awk program, ``deno eval``), on stdin (a
heredoc, a pipe, ``make -f -``), or in a script file this line wrote (``sh x.sh``). What
"always allow" remembers of them is the interpreter and its script, module or inline option.
"""

from __future__ import annotations

from agent_core.safety.argv import Argv
from agent_core.safety.findings import STDIN_NAMES
from agent_core.safety.launchers import (
    INTERPRETERS,
    after_options,
    interpreter_of,
    option_values,
    prefix_of,
    program_name,
)
from agent_core.safety.reading import (
    Call,
    Reading,
    Walk,
    code_string,
    inline,
    script_file,
    stdin_code,
)
from agent_core.safety.rows import rules
from agent_core.safety.shell import Word

_INTERPRETER_VALUED = ("-W", "-X", "-r", "--require", "-I", "-M", "--import", "--loader")


def shell(walk: Walk, call: Call) -> Reading:
    """``sh -c CODE``, ``bash -s``, ``sh < x.sh``, ``sh x.sh``: the shell and its script file
    are remembered; nothing when it only runs code judged here (``-c``, stdin)."""
    name, command, depth = call.name, call.command, call.depth
    rest = list(call.args)
    string, reads_stdin = False, False
    while rest and (value := rest[0].value) is not None and value.startswith(("-", "+")):
        rest.pop(0)
        if value in ("--", "-", "+"):
            break
        if value in ("-o", "+o", "-O", "+O") and rest:
            rest.pop(0)
            continue
        string = string or (value.startswith("-") and "c" in value[1:])
        reads_stdin = reads_stdin or "s" in value[1:]
    if rest and rest[0].value is None and not string:
        walk.findings.unknown(f"{name} runs a script produced at run time")
        return Reading(call.argv, name)
    if string:
        if rest:
            code_string(walk, rest[:1], depth, f"{name} -c")
        return Reading(None)
    if rest and not reads_stdin and rest[0].value not in STDIN_NAMES:
        script_file(walk, rest[0], None, depth)
        return Reading(call.argv, f"{name} {rest[0].value}")  # runs like any program
    stdin_code(walk, command, depth, None, name)
    if not command.piped and not any(r.feeds_input for r in command.redirects):
        return Reading(call.argv, name)  # an interactive shell, or one reading a file (< f)
    return Reading(None)


def interpreter(walk: Walk, call: Call) -> Reading:
    """``python -c CODE``, ``node -e``, ``python -m pip``, ``perl x.pl``: remembered as the
    interpreter and its script or module, or its inline option."""
    language = interpreter_of(call.name) or call.name
    name = call.command.program.text if call.command.program else language
    inline_options = INTERPRETERS[language]
    rest = list(call.args)
    while rest:
        value = rest[0].value
        if value is None:
            walk.findings.unknown(f"{language} runs with arguments known only at run time")
            return Reading(call.argv, name)
        if value == "--" or not value.startswith("-") or value == "-":
            break
        rest.pop(0)
        head = value.split("=", 1)[0]
        if head in inline_options or _bundled(value, inline_options):
            code = Word(value, value.split("=", 1)[1]) if "=" in value else None
            inline(walk.findings, code or (rest[0] if rest else None), language)
            return Reading(call.argv, f"{name} {head}")
        if value == "-m" and language in ("python", "pypy"):
            return Reading(call.argv, _module(walk, name, rest))
        if value in _INTERPRETER_VALUED:
            rest = rest[1:]
    if rest and rest[0].value == "--":
        rest = rest[1:]
    return Reading(call.argv, _script(walk, call, language, rest, name))


def _script(walk: Walk, call: Call, language: str, rest: list[Word], name: str) -> str:
    """An interpreter given a script file (or stdin): the file is judged when this line
    wrote it, and its arguments like a program's of its name (``manage.py flush``)."""
    if rest and rest[0].value is None:
        walk.findings.unknown(f"{language} runs a script produced at run time")
        return name
    if not rest or rest[0].value in STDIN_NAMES:
        stdin_code(walk, call.command, call.depth, language, language)
        return name
    script = rest[0].value or ""
    script_file(walk, rest[0], language, call.depth)
    rules(walk.findings, Argv(program_name(script), tuple(rest[1:])))
    return f"{name} {script}"


def _module(walk: Walk, name: str, rest: list[Word]) -> str:
    """``python -m pip uninstall x`` is judged as ``pip uninstall x``."""
    if not rest:
        return name
    rules(walk.findings, Argv(program_name(rest[0].text), tuple(rest[1:])))
    return f"{name} -m {rest[0].text}"  # runs like any program


def awk(walk: Walk, call: Call) -> Reading:
    """Its program: the first operand, or ``-f -`` (stdin)."""
    language, args = call.name, call.args
    script = option_values(args, ("-f", "--file"))
    if any(w.value is None or w.value in STDIN_NAMES for w in script):
        stdin_code(walk, call.command, call.depth, language, language)
    elif not script:
        rest = after_options(args, frozenset({"-F", "-v", "--assign", "--field-separator"}))
        inline(walk.findings, rest[0] if rest else None, language)
    return Reading(call.argv, language)


_DEFAULT_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")  # where make looks, in order


def make(walk: Walk, call: Call) -> Reading:
    """A makefile on stdin (``-f -``) or one this line wrote (``-f m.mk``, or a default name
    in the folder make runs in) is judged as the shell code of its recipes; ``--eval`` text
    cannot be."""
    args = call.args
    name = call.command.program.text if call.command.program else "make"
    script = option_values(args, ("-f", "--file", "--makefile"))
    folders = option_values(args, ("-C", "--directory"))
    folder = f"{folders[-1].text.rstrip('/')}/" if folders else ""
    if any(w.value is None or w.value in STDIN_NAMES for w in script):
        stdin_code(walk, call.command, call.depth, "make", name)
    elif any(w.text.startswith(("--eval", "-E")) for w in args):
        walk.findings.unknown("make --eval runs text as a makefile")
    files = [w.text for w in script] or list(_DEFAULT_MAKEFILES)
    for file in files if not any(w.value is None for w in script) else ():
        path = file if file.startswith("/") else folder + file
        script_file(walk, Word(path, path), "make", call.depth)
    return Reading(call.argv, prefix_of(name, "make", Argv("make", args)))


def deno(walk: Walk, call: Call) -> Reading:
    """``deno eval CODE``, ``deno run -``."""
    args = call.args
    if args and args[0].value == "eval":
        inline(walk.findings, args[1] if len(args) > 1 else None, "deno")
    elif args and args[0].value == "run" and any(w.value in STDIN_NAMES for w in args[1:]):
        stdin_code(walk, call.command, call.depth, "deno", "deno")
    return Reading(call.argv, f"deno {args[0].text}" if args else "deno")


def _bundled(value: str, inline_options: frozenset[str]) -> bool:
    """``-Sc`` ends in an inline-code option."""
    return not value.startswith("--") and any(
        len(o) == 2 and o[1] == value[-1] for o in inline_options
    )
