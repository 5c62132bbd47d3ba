"""Scripting languages that edit files in place and print nothing back into them, so the files
are emptied, like ``sed -i d f``: ``perl -i -ne '' f`` (``-n`` with nothing printed),
``perl -pi -e '$_=""' f`` (``-p`` with every line blanked), ``awk -i inplace 'NR==0' f``
(gawk's in-place extension with a program that prints nothing). Rows in ``emptying.py``.

Their switches are read as each language reads them (``-pi``, ``-i.bak``, ``-0777ne``;
``-i inplace``, ``--include=inplace``); a program known only at run time (``-e "$CODE"``, a
script file) is not guessed at: what it runs is judged by ``interpreters.py``.
"""

from __future__ import annotations

import re

from msgspec import Struct

from agent_core.safety.argv import Argv
from agent_core.safety.shell import Word

# What writes back into the file being edited.
_PERL_PRINTS = re.compile(r"\b(print|printf|say|syswrite|write|select|system|exec)\b|`")
# A -p script that leaves every line empty: `$_ = ""`, `undef $_`, `s/.*//s`.
_PERL_BLANKS = re.compile(
    r"^\s*(\$_\s*=\s*(''|\"\"|q\(\)|qq\(\)|undef)|undef\s*\(?\s*\$_\s*\)?"
    r"|s/\^?\.\*\$?//s?g?|tr/\\x00-\\xff//d)\s*;?\s*(next\s*;?\s*)?$"
)
# Perl switches whose value is the rest of their word (`-Ilib`, `-MData::Dumper`, `-F:`).
_PERL_VALUED = frozenset("IMmFxCdD")
_PERL_NO_VALUE = frozenset("nplasawWXtTcuUv")


class PerlEdit(Struct, frozen=True):
    in_place: bool
    loop: str  # "p", "n" or ""
    code: str | None  # the -e/-E code joined; None: a script file or a run-time value
    files: tuple[Word, ...]


def _next_switch(words: list[Word]) -> str | None:
    """The next switch taken off the front of ``words``; None at the first operand (a ``--``
    before it is taken off too)."""
    value = words[0].value if words else None
    if value is None or not value.startswith("-") or value == "-":
        return None
    words.pop(0)
    return None if value == "--" else value


def perl_edit(argv: Argv) -> PerlEdit:
    """Perl's switches read as perl reads them (``-pi.bak -e CODE``, ``-0777ne CODE``)."""
    in_place, loop, known = False, "", True
    codes: list[str] = []
    words = list(argv.args)
    while (value := _next_switch(words)) is not None:
        letters = value[1:]
        while letters:
            letter, letters = letters[0], letters[1:]
            if letter == "i":
                in_place, letters = True, ""  # the rest is the backup's extension
            elif letter in "eE":
                code = letters or (words.pop(0).value if words else "")
                known = known and code is not None
                codes.append(code or "")
                letters = ""
            elif letter in "np":
                loop = "p" if "p" in (loop, letter) else "n"
            elif letter == "0":
                letters = letters.lstrip("0123456789abcdefABCDEFxX")
            elif letter in _PERL_VALUED:
                letters = ""  # its value is the rest of the word
            elif letter not in _PERL_NO_VALUE:
                letters = ""
    if not codes:  # the first operand is the script file
        return PerlEdit(in_place, loop, None, tuple(words[1:]))
    return PerlEdit(in_place, loop, "\n".join(codes) if known else None, tuple(words))


def perl_empties(argv: Argv) -> bool:
    """``perl -i -ne '' f``, ``perl -pi -e '$_=""' f``: nothing is written back."""
    edit = perl_edit(argv)
    if not edit.in_place or edit.code is None or not edit.loop or _PERL_PRINTS.search(edit.code):
        return False
    return edit.loop == "n" or bool(_PERL_BLANKS.match(edit.code))


# gawk: the options whose value is the next word; the in-place extension's names.
_AWK_VALUED = frozenset(
    {"-F", "-v", "-f", "-i", "-l", "-e", "-E", "--field-separator", "--assign", "--file"}
    | {"--include", "--load", "--source", "--exec"}
)
_INPLACE = frozenset({"inplace", "inplace.awk"})
_AWK_PRINTS = re.compile(r"\b(print|printf|system)\b")
# A pattern that matches no line: `0`, `NR==0`, `NR<1`, `!1`.
_NEVER = re.compile(r"^(0+|!\s*1|NR\s*(==|<=)\s*0|NR\s*<\s*1|\"\")$")


def awk_edit(argv: Argv) -> tuple[bool, str | None, tuple[Word, ...]]:
    """(in place, the program or None when it is a file or known at run time, the files)."""
    in_place, program, words = False, None, list(argv.args)
    from_file = False
    while (value := _next_switch(words)) is not None:
        option, _, attached = value.partition("=")
        if option in ("-i", "--include") or (option.startswith("-i") and len(option) > 2):
            name = attached or (option[2:] if option.startswith("-i") else "")
            if not name and words:
                name = words.pop(0).value or ""
            in_place = in_place or name in _INPLACE
        elif option in _AWK_VALUED:
            from_file = from_file or option in ("-f", "--file", "-E", "--exec", "-e", "--source")
            if not attached and words:
                words.pop(0)
    if not from_file and words:
        program = words.pop(0).value
    return in_place, None if from_file else program, tuple(words)


def awk_empties(argv: Argv) -> bool:
    """``awk -i inplace 'NR==0' f``, ``awk -i inplace '{}' f``: nothing is written back."""
    in_place, program, _ = awk_edit(argv)
    return in_place and program is not None and _prints_nothing(program)


def _prints_nothing(program: str) -> bool:
    """No rule prints, and some rule reads the input (a program of ``BEGIN`` alone reads no
    file, so leaves it as it is)."""
    if _AWK_PRINTS.search(program):
        return False
    reads = False
    for pattern, has_action in _rules(program):
        if not has_action and not _NEVER.match(pattern):
            return False  # a pattern alone prints the lines it matches
        reads = reads or pattern not in ("BEGIN", "BEGINFILE")
    return reads


def _rules(program: str) -> list[tuple[str, bool]]:
    """(pattern, whether an action follows it) for each rule, at the outermost level."""
    rules: list[tuple[str, bool]] = []
    depth, text, quote = 0, "", False
    for char in program:
        if quote:
            quote = char != '"'
            text += char if depth == 0 else ""
            continue
        if char == '"':
            quote = True
        if char == "{":
            if depth == 0:
                *bare, last = re.split(r"[;\n]", text)
                rules += [(p.strip(), False) for p in bare if p.strip()]
                rules.append((last.strip(), True))
                text = ""
            depth += 1
        elif char == "}":
            depth = max(depth - 1, 0)
        elif depth == 0:
            text += char
    rules += [(p.strip(), False) for p in re.split(r"[;\n]", text) if p.strip()]
    return rules
