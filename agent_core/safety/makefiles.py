"""A makefile's text as the shell code make runs from it: its recipe lines (a tab first, or
after ``;`` on a rule's line), its ``$(shell …)`` calls, and any line that is neither a rule,
an assignment, a directive nor a comment (make would refuse it; judging it costs nothing).
Make's own references become shell variables, known only at run time, except make's built-in
commands (``$(CC)``, ``$(RM)``) when the makefile does not set them: those are their values.
"""

from __future__ import annotations

import re

from agent_core.safety.argv import names

_RULE = re.compile(r"^[^\t=#;]*?[^:=]::?(?!=)(\s|;|$)")  # targets: prerequisites ; recipe
_ASSIGNMENT = re.compile(r"^\s*(override\s+|export\s+|private\s+)*([^\s:=#+?!]+)\s*(::?|\+|\?|!)?=")
_DIRECTIVES = names(
    "include -include sinclude ifeq ifneq ifdef ifndef else endif define endef export "
    "unexport override undefine vpath private load"
)
_REFERENCE = re.compile(r"\$[({][^(){}]*[)}]")  # $(CC), ${OUT}, $(patsubst %.c,%.o,$x)
_SHELL_CALL = re.compile(r"\$[({]shell\s")
BUILT_IN = {  # make's default values of the variables that name a command
    "RM": "rm -f",
    "CC": "cc",
    "CXX": "g++",
    "CPP": "cc -E",
    "AR": "ar",
    "AS": "as",
    "LD": "ld",
    "MAKE": "make",
}


def shell_lines(text: str) -> list[str]:
    """The shell code ``text``, read as a makefile, runs."""
    lines: list[str] = []
    logical = text.replace("\\\n", " ").split("\n")
    known = dict(BUILT_IN)
    for line in logical:
        if (assigned := _ASSIGNMENT.match(line)) is not None:
            known.pop(assigned.group(2), None)
    for line in logical:
        lines += _shell_calls(line, known)
        stripped = line.strip()
        if line.startswith("\t"):
            lines.append(_as_shell(line.lstrip("\t").lstrip("@+- "), known))
        elif _RULE.match(line):
            recipe = line.partition(";")[2]
            lines += [_as_shell(recipe, known)] if recipe.strip() else []
        elif stripped and not (
            stripped.startswith("#")
            or _ASSIGNMENT.match(line)
            or stripped.split()[0] in _DIRECTIVES
        ):
            lines.append(_as_shell(stripped, known))
    return lines


def _as_shell(line: str, known: dict[str, str]) -> str:
    """A recipe line as the shell sees it: ``$$`` is ``$``, make's references are unknown
    but for the ``known`` built-in ones."""

    def value(match: re.Match[str]) -> str:
        return known.get(match.group(0)[2:-1], "${MAKE_VALUE}")

    return "$".join(_REFERENCE.sub(value, part) for part in line.split("$$"))


def _shell_calls(line: str, known: dict[str, str]) -> list[str]:
    """The commands of ``$(shell …)`` calls in ``line`` (balanced parentheses)."""
    calls: list[str] = []
    for match in _SHELL_CALL.finditer(line):
        opening = line[match.start() + 1]
        closing = ")" if opening == "(" else "}"
        depth, start = 0, match.end()
        for index in range(match.start() + 1, len(line)):
            depth += {opening: 1, closing: -1}.get(line[index], 0)
            if depth == 0:
                calls.append(_as_shell(line[start:index], known))
                break
        else:
            calls.append(_as_shell(line[start:], known))
    return calls
