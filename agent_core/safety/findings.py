"""What a command line was found to do, and the reading of code given to shells and
interpreters (``sh -c``, a script on stdin, ``python -c``, awk programs, makefiles).

``Findings`` keeps the dangers, the unknowns, the files emptied in place, whether everything
only read, what "always allow" would remember, and what the line itself writes into files (so
a script it writes and then runs is judged as the code it is); ``judge._Judge`` walks the line
and calls back into ``line`` here when a shell is handed more shell.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agent_core.safety.argv import Argv
from agent_core.safety.dangerous import reads_credentials
from agent_core.safety.emitted import emitted, stdin_text
from agent_core.safety.inline import code_findings
from agent_core.safety.launchers import (
    AWK,
    INTERPRETERS,
    after_options,
    interpreter_of,
    option_values,
    prefix_of,
    program_name,
)
from agent_core.safety.shell import SimpleCommand, Word

STDIN_NAMES = ("-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")
TRUNCATING = (">", ">|", "&>", ">&")  # redirections that empty their file first
_INTERPRETER_VALUED = ("-W", "-X", "-r", "--require", "-I", "-M", "--import", "--loader")


@dataclass(frozen=True)
class Judgement:
    dangers: tuple[str, ...] = ()  # needs a human's eyes in every mode
    unknowns: tuple[str, ...] = ()  # cannot be read before it runs: asks in every mode too
    read_only: bool = True  # every part only reads
    prefixes: tuple[str, ...] = ()  # what "always allow" remembers: `git push`, `pytest`
    emptied: tuple[str, ...] = ()  # files emptied in place: /undo restores them from a checkpoint
    # The files it empties, relative to where it starts; None: one it does not name before it
    # runs (``truncate -s 0 "$F"``, ``cd x && : > f``): no checkpoint can vouch for it.
    emptied_files: tuple[str | None, ...] = ()

    @property
    def concern(self) -> str | None:
        """Why it asks in every mode, or None."""
        return self.concern_given(checkpoint=False)

    def concern_given(self, *, checkpoint: bool, not_kept: str | None = None) -> str | None:
        """Why it asks in every mode, or None; ``checkpoint``: the turn's checkpoint is taken
        before it runs and keeps every file it empties in place, so ``/undo`` restores them;
        ``not_kept``: why the checkpoint taken does not keep one (ignored, too large...)."""
        if self.dangers or self.unknowns:
            return (self.dangers or self.unknowns)[0]
        if self.emptied and not checkpoint:
            if not_kept is not None:
                return (
                    f"{self.emptied[0]}, and this turn's checkpoint cannot restore it: {not_kept}"
                )
            return f"{self.emptied[0]}, with no checkpoint of this turn to restore it from"
        return None


@dataclass
class Findings:
    dangers: list[str] = field(default_factory=list[str])
    unknowns: list[str] = field(default_factory=list[str])
    read_only: bool = True
    prefixes: list[str] = field(default_factory=list[str])
    downloads: set[str] = field(default_factory=set[str])  # files this line downloads
    emptied: list[str] = field(default_factory=list[str])
    emptied_files: list[str | None] = field(default_factory=list[str | None])
    moved: bool = False  # it changes directory (cd, git -C): the files it names are elsewhere
    # Files this line writes -> what it writes into them (None: known only at run time).
    scripts: dict[str, str | None] = field(default_factory=dict[str, str | None])

    def result(self) -> Judgement:
        return Judgement(
            tuple(self.dangers),
            tuple(self.unknowns),
            self.read_only,
            tuple(self.prefixes),
            tuple(self.emptied),
            (*self.emptied_files, None)
            if self.moved and self.emptied
            else tuple(self.emptied_files),
        )

    def danger(self, reason: str) -> None:
        self.read_only = False
        if reason not in self.dangers:
            self.dangers.append(reason)

    def unknown(self, reason: str) -> None:
        self.read_only = False
        if reason not in self.unknowns:
            self.unknowns.append(reason)

    def empties(self, reason: str, files: Sequence[str | None]) -> None:
        """It empties ``files`` in place (None: a file it does not name before it runs)."""
        self.read_only = False
        if reason not in self.emptied:
            self.emptied.append(reason)
        self.emptied_files += [f for f in files if f not in self.emptied_files]

    def line(self, source: str, depth: int) -> None:
        raise NotImplementedError

    def code_string(self, words: Sequence[Word], depth: int, name: str) -> None:
        raise NotImplementedError

    def rules(self, argv: Argv, command: SimpleCommand | None = None) -> None:
        raise NotImplementedError

    def downloaded(self, word: Word) -> bool:
        return word.text in self.downloads or word.text.lstrip("./") in self.downloads

    # What the line writes into files, and runs.

    def record_writes(self, command: SimpleCommand) -> None:
        """What ``command`` writes into files through its redirections (and ``tee``): kept,
        to judge a script the line then runs; nothing written over a file empties it."""
        content = emitted(command)
        targets = [(r.target, r.operator) for r in command.redirects if r.writes and r.target]
        if command.program is not None and command.program.value == "tee":
            content = stdin_text(command)
            append = any(w.value in ("-a", "--append") for w in command.words[1:])
            operator = ">>" if append else ">"
            targets += [(w, operator) for w in command.words[1:] if w.text[:1] != "-"]
        for target, operator in targets:
            if target.value is None:
                continue
            key = path_key(target.value)
            if operator not in TRUNCATING:
                before = self.scripts.get(key, "")
                self.scripts[key] = None if before is None or content is None else before + content
                continue
            self.scripts[key] = content
            if content is not None and not content.strip():
                self.empties(f"it empties {target.value} (writes nothing over it)", [target.value])

    def script_file(self, word: Word, language: str | None, depth: int) -> None:
        """A script file is run: judge it when this line downloaded or wrote it."""
        if self.downloaded(word):
            self.unknown(f"it runs a script it has just downloaded ({word.text})")
            return
        key = path_key(word.text)
        if key not in self.scripts:
            return  # a file of the workspace: it runs like any program, in the sandbox
        content = self.scripts[key]
        if content is None:
            self.unknown(f"it runs a script this line writes ({word.text}), known only then")
        else:
            self.run_code(content, language or _shebang(content), depth)

    def written_input(self, command: SimpleCommand) -> Word | None:
        """The file ``command`` reads on stdin (``< x.sh``), when this line writes it."""
        for redirect in command.redirects:
            target = redirect.target
            value = target.value if target is not None else None
            if redirect.operator == "<" and value is not None and path_key(value) in self.scripts:
                return target
        return None

    def run_code(self, text: str, language: str | None, depth: int) -> None:
        """``text`` as code: shell (``language`` None) or an interpreter's."""
        if language is None:
            self.line(text, depth + 1)
        else:
            self.code(text, language)

    # Shells and interpreters.

    def shell(
        self, name: str, args: tuple[Word, ...], command: SimpleCommand, depth: int
    ) -> str | None:
        """Judge the code a shell runs. Returns what "always allow" remembers of it: the shell
        and its script file; None when it only runs code judged here (``-c``, stdin)."""
        rest = list(args)
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
            self.unknown(f"{name} runs a script produced at run time")
            return name
        if string:
            if rest:
                self.code_string(rest[:1], depth, f"{name} -c")
            return None
        if rest and not reads_stdin and rest[0].value not in STDIN_NAMES:
            self.script_file(rest[0], None, depth)
            return f"{name} {rest[0].value}"  # a script file: it runs like any program
        self.stdin_code(command, depth, None, name)
        if not command.piped and not any(r.feeds_input for r in command.redirects):
            return name  # an interactive shell, or one reading a script file (< file)
        return None

    def interpreter(
        self, language: str, args: tuple[Word, ...], command: SimpleCommand, depth: int
    ) -> str:
        """Judge the code an interpreter runs. Returns what "always allow" remembers of it:
        the interpreter and its script or module, or ``-c`` for inline code."""
        name = command.program.text if command.program else language
        if language in AWK:
            return self.awk(language, args, command, depth)
        if language == "make":
            return self.make(args, command, depth, name)
        if language == "deno":
            return self.deno(args, command, depth)
        inline_options = INTERPRETERS[language]
        rest = list(args)
        while rest:
            value = rest[0].value
            if value is None:
                self.unknown(f"{language} runs with arguments known only at run time")
                return name
            if value == "--" or not value.startswith("-") or value == "-":
                break
            rest.pop(0)
            head = value.split("=", 1)[0]
            if head in inline_options or _bundled(value, inline_options):
                code = Word(value, value.split("=", 1)[1]) if "=" in value else None
                self.inline(code or (rest[0] if rest else None), language)
                return f"{name} {head}"
            if value == "-m" and language in ("python", "pypy"):
                return self.module(name, rest)
            if value in _INTERPRETER_VALUED:
                rest = rest[1:]
        if rest and rest[0].value == "--":
            rest = rest[1:]
        return self.script(language, rest, command, depth, name)

    def script(
        self, language: str, rest: list[Word], command: SimpleCommand, depth: int, name: str
    ) -> str:
        """An interpreter given a script file (or stdin): the file is judged when this line
        wrote it, and its arguments like a program's of its name (``manage.py flush``)."""
        if rest and rest[0].value is None:
            self.unknown(f"{language} runs a script produced at run time")
            return name
        if not rest or rest[0].value in STDIN_NAMES:
            self.stdin_code(command, depth, language, language)
            return name
        script = rest[0].value or ""
        self.script_file(rest[0], language, depth)
        self.rules(Argv(program_name(script), tuple(rest[1:])))
        return f"{name} {script}"

    def module(self, name: str, rest: list[Word]) -> str:
        """``python -m pip uninstall x`` is judged as ``pip uninstall x``."""
        if not rest:
            return name
        self.rules(Argv(program_name(rest[0].text), tuple(rest[1:])))
        return f"{name} -m {rest[0].text}"  # runs like any program

    def awk(self, language: str, args: tuple[Word, ...], command: SimpleCommand, depth: int) -> str:
        script = option_values(args, ("-f", "--file"))
        if any(w.value is None or w.value in STDIN_NAMES for w in script):
            self.stdin_code(command, depth, language, language)
        elif not script:
            rest = after_options(args, frozenset({"-F", "-v", "--assign", "--field-separator"}))
            self.inline(rest[0] if rest else None, language)
        return language

    def make(self, args: tuple[Word, ...], command: SimpleCommand, depth: int, name: str) -> str:
        script = option_values(args, ("-f", "--file", "--makefile"))
        if any(w.value is None or w.value in STDIN_NAMES for w in script):
            self.stdin_code(command, depth, "make", name)
        elif any(w.text.startswith(("--eval", "-E")) for w in args):
            self.unknown("make --eval runs text as a makefile")
        return prefix_of(name, "make", Argv("make", args))

    def deno(self, args: tuple[Word, ...], command: SimpleCommand, depth: int) -> str:
        if args and args[0].value == "eval":
            self.inline(args[1] if len(args) > 1 else None, "deno")
        elif args and args[0].value == "run" and any(w.value in STDIN_NAMES for w in args[1:]):
            self.stdin_code(command, depth, "deno", "deno")
        return f"deno {args[0].text}" if args else "deno"

    def stdin_code(
        self, command: SimpleCommand, depth: int, language: str | None, name: str
    ) -> None:
        """A shell (``language`` None), interpreter, or ``at`` that reads its program from
        stdin: a here-document, a here-string, what the command before it prints, or a file
        this line wrote (``sh < x.sh``)."""
        text = stdin_text(command)
        if text is not None:
            self.run_code(text, language, depth)
        elif (written := self.written_input(command)) is not None:
            self.script_file(written, language, depth)
        elif any(r.feeds_input for r in command.redirects):
            self.unknown(f"{name} runs code that is only known at run time")
        elif command.piped:
            self.unknown(f"it runs another command's output as code ({name})")

    def inline(self, word: Word | None, language: str) -> None:
        if word is None:
            return
        if word.value is None:
            self.unknown(f"{language} runs code built at run time")
        else:
            self.code(word.value, language)

    def code(self, text: str, language: str) -> None:
        dangers, unknowns = code_findings(text, language)
        for reason in dangers:
            self.danger(reason)
        for reason in unknowns:
            self.unknown(reason)
        if reads_credentials(text):
            self.danger(f"its {language} code reads credentials")


def _bundled(value: str, inline_options: frozenset[str]) -> bool:
    """``-Sc`` ends in an inline-code option."""
    return not value.startswith("--") and any(
        len(o) == 2 and o[1] == value[-1] for o in inline_options
    )


def path_key(path: str) -> str:
    """A path as the line's own writes are kept: ``./x.sh`` is ``x.sh``."""
    while path.startswith("./"):
        path = path[2:]
    return path


def _shebang(content: str) -> str | None:
    """The interpreter a script's ``#!`` line names (None: a shell)."""
    first = content.split("\n", 1)[0]
    if not first.startswith("#!"):
        return None
    words = first[2:].split()
    if words and program_name(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
    return interpreter_of(program_name(words[0])) if words else None
