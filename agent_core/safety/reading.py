"""What the readers of programs share (``readers.py`` is their table): the walker they are
handed (``Walk``: ``judge.py``'s, with its ``Findings``), one ``Call`` of a program, the
``Reading`` a reader makes of it, and the ways code reaches a program: a string (``sh -c``),
a script file the line wrote or downloaded, stdin, inline code. Each is a function of the
walker, so a reader can judge the code it finds as the line's own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol

from agent_core.safety.argv import Argv
from agent_core.safety.dangerous import reads_credentials
from agent_core.safety.emitted import stdin_text
from agent_core.safety.findings import Findings, path_key
from agent_core.safety.inline import code_findings
from agent_core.safety.launchers import interpreter_of, program_name
from agent_core.safety.makefiles import shell_lines
from agent_core.safety.shell import SimpleCommand, Word


class Walk(Protocol):
    """The walker a reader is handed: what it found so far, and how to judge more."""

    findings: Findings

    def line(self, source: str, depth: int) -> None:
        """Judge ``source`` as a line of shell, ``depth`` shells deep."""
        ...

    def simple(
        self, words: list[Word], command: SimpleCommand, depth: int, head: tuple[str, ...] = ()
    ) -> None:
        """Judge ``words`` as a simple command run by ``command`` (after the runner ``head``)."""
        ...


class Call(NamedTuple):
    """One program run, as the readers see it."""

    name: str  # its name, as the tables know it: ``python3``, ``git``
    args: tuple[Word, ...]
    command: SimpleCommand  # where it stands: its redirections, the command piped into it
    depth: int  # shells within shells
    head: tuple[str, ...] = ()  # the runner words in front of it (``uv run``)

    @property
    def argv(self) -> Argv:
        return Argv(self.name, self.args)


class Reading(NamedTuple):
    """What a reader made of a call; the walker then applies the tables to ``argv``."""

    argv: Argv | None  # None: it only runs code judged already; nothing of it remains
    prefix: str | None = None  # what "always allow" remembers of it, when not the usual
    risky: bool = False  # more than a read whatever READ_ONLY says (``git -c``)
    launcher: bool = False  # it runs another program, judged already: only its own rows remain


# A reader judges what a program runs. None: nothing special, it is judged as a plain program.
Reader = Callable[[Walk, Call], Reading | None]


def launched(call: Call) -> Reading:
    """``call`` ran another program, judged already: only the launcher's own rows remain."""
    return Reading(call.argv, launcher=True)


def first(*readers: Reader) -> Reader:
    """The reading of the first reader that finds something (``npx -c CMD``, else a runner)."""

    def read(walk: Walk, call: Call) -> Reading | None:
        for reader in readers:
            if (reading := reader(walk, call)) is not None:
                return reading
        return None

    return read


# How code reaches a program.


def code_string(walk: Walk, words: Sequence[Word], depth: int, name: str) -> None:
    """``words`` joined are shell code (``eval``, ``sh -c``, ``watch``)."""
    if all(w.literal for w in words):
        walk.line(" ".join(w.value or "" for w in words), depth + 1)
    else:
        walk.findings.unknown(f"it runs shell code built at run time ({name})")


def script_file(walk: Walk, word: Word, language: str | None, depth: int) -> None:
    """A script file is run: judge it when this line downloaded or wrote it."""
    findings = walk.findings
    if findings.downloaded(word):
        findings.unknown(f"it runs a script it has just downloaded ({word.text})")
        return
    key = path_key(word.text)
    if key not in findings.scripts:
        return  # a file of the workspace: it runs like any program, in the sandbox
    content = findings.scripts[key]
    if content is None:
        findings.unknown(f"it runs a script this line writes ({word.text}), known only then")
    else:
        run_code(walk, content, language or _shebang(content), depth)


def run_code(walk: Walk, text: str, language: str | None, depth: int) -> None:
    """``text`` as code: shell (``language`` None), a makefile's recipes, or an interpreter's."""
    if language is None:
        walk.line(text, depth + 1)
    elif language == "make":
        for line in shell_lines(text):
            walk.line(line, depth + 1)
    else:
        code(walk.findings, text, language)


def stdin_code(
    walk: Walk, command: SimpleCommand, depth: int, language: str | None, name: str
) -> None:
    """A shell (``language`` None), interpreter, or ``at`` that reads its program from
    stdin: a here-document, a here-string, what the command before it prints, or a file
    this line wrote (``sh < x.sh``)."""
    text = stdin_text(command)
    if text is not None:
        run_code(walk, text, language, depth)
    elif (written := walk.findings.written_input(command)) is not None:
        script_file(walk, written, language, depth)
    elif any(r.feeds_input for r in command.redirects):
        walk.findings.unknown(f"{name} runs code that is only known at run time")
    elif command.piped:
        walk.findings.unknown(f"it runs another command's output as code ({name})")


def inline(findings: Findings, word: Word | None, language: str) -> None:
    """Code given in an argument (``python -c CODE``)."""
    if word is None:
        return
    if word.value is None:
        findings.unknown(f"{language} runs code built at run time")
    else:
        code(findings, word.value, language)


def code(findings: Findings, text: str, language: str) -> None:
    dangers, unknowns = code_findings(text, language)
    for reason in dangers:
        findings.danger(reason)
    for reason in unknowns:
        findings.unknown(reason)
    if reads_credentials(text):
        findings.danger(f"its {language} code reads credentials")


def _shebang(content: str) -> str | None:
    """The interpreter a script's ``#!`` line names (None: a shell)."""
    first_line = content.split("\n", 1)[0]
    if not first_line.startswith("#!"):
        return None
    words = first_line[2:].split()
    if words and program_name(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
    return interpreter_of(program_name(words[0])) if words else None
