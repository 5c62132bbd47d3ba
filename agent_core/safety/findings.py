"""What a command line was found to do, and the reading of code given to shells and
interpreters (``sh -c``, a script on stdin, ``python -c``, awk programs, makefiles).

``Findings`` keeps the dangers, the unknowns, whether everything only read, and what "always
allow" would remember; ``judge._Judge`` walks the line and calls back into ``line`` here when
a shell is handed more shell.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agent_core.safety.argv import Argv
from agent_core.safety.dangerous import reads_credentials
from agent_core.safety.inline import code_findings
from agent_core.safety.launchers import AWK, INTERPRETERS, after_options, option_values, prefix_of
from agent_core.safety.shell import SimpleCommand, Word

STDIN_NAMES = ("-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")


@dataclass(frozen=True)
class Judgement:
    dangers: tuple[str, ...] = ()  # needs a human's eyes in every mode
    unknowns: tuple[str, ...] = ()  # cannot be read before it runs: asks in every mode too
    read_only: bool = True  # every part only reads
    prefixes: tuple[str, ...] = ()  # what "always allow" remembers: `git push`, `pytest`

    @property
    def concern(self) -> str | None:
        """Why it asks in every mode, or None."""
        return (self.dangers or self.unknowns or (None,))[0]


@dataclass
class Findings:
    dangers: list[str] = field(default_factory=list[str])
    unknowns: list[str] = field(default_factory=list[str])
    read_only: bool = True
    prefixes: list[str] = field(default_factory=list[str])
    downloads: set[str] = field(default_factory=set[str])  # files this line downloads

    def result(self) -> Judgement:
        return Judgement(
            tuple(self.dangers), tuple(self.unknowns), self.read_only, tuple(self.prefixes)
        )

    def danger(self, reason: str) -> None:
        self.read_only = False
        if reason not in self.dangers:
            self.dangers.append(reason)

    def unknown(self, reason: str) -> None:
        self.read_only = False
        if reason not in self.unknowns:
            self.unknowns.append(reason)

    def line(self, source: str, depth: int) -> None:
        raise NotImplementedError

    def code_string(self, words: Sequence[Word], depth: int, name: str) -> None:
        raise NotImplementedError

    def downloaded(self, word: Word) -> bool:
        return word.text in self.downloads or word.text.lstrip("./") in self.downloads

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
            if self.downloaded(rest[0]):
                self.unknown(f"it runs a script it has just downloaded ({rest[0].text})")
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
        if language in AWK or language == "make":
            script = option_values(args, ("-f", "--file", "--makefile"))
            if any(w.value is None or w.value in STDIN_NAMES for w in script):
                self.stdin_code(command, depth, language, name)
            elif language == "make" and any(w.text.startswith(("--eval", "-E")) for w in args):
                self.unknown("make --eval runs text as a makefile")
            elif language in AWK and not script:
                rest = after_options(args, frozenset({"-F", "-v", "--assign", "--field-separator"}))
                self.inline(rest[0] if rest else None, language)
            return language if language in AWK else prefix_of(name, "make", Argv("make", args))
        if language == "deno":
            if args and args[0].value == "eval":
                self.inline(args[1] if len(args) > 1 else None, language)
            elif args and args[0].value == "run" and any(w.value in STDIN_NAMES for w in args[1:]):
                self.stdin_code(command, depth, language, name)
            return f"deno {args[0].text}" if args else "deno"
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
            bundled = not value.startswith("--") and any(
                len(o) == 2 and o[1] == value[-1] for o in inline_options
            )
            if head in inline_options or bundled:
                code = Word(value, value.split("=", 1)[1]) if "=" in value else None
                self.inline(code or (rest[0] if rest else None), language)
                return f"{name} {head}"
            if value == "-m" and language in ("python", "pypy"):
                return f"{name} -m {rest[0].text}" if rest else name  # runs like any program
            if value in ("-W", "-X", "-r", "--require", "-I", "-M", "--import", "--loader"):
                rest = rest[1:]
        if rest and rest[0].value == "--":
            rest = rest[1:]
        if rest and rest[0].value is None:
            self.unknown(f"{language} runs a script produced at run time")
        elif not rest or rest[0].value in STDIN_NAMES:
            self.stdin_code(command, depth, language, language)
        else:
            if self.downloaded(rest[0]):
                self.unknown(f"it runs a script it has just downloaded ({rest[0].text})")
            return f"{name} {rest[0].value}"  # a script file
        return name

    def stdin_code(
        self, command: SimpleCommand, depth: int, language: str | None, name: str
    ) -> None:
        """A shell (``language`` None) or interpreter that reads its program from stdin."""
        feeds = [r for r in command.redirects if r.feeds_input]
        for redirect in feeds:
            if redirect.body_expands:
                self.unknown(f"{name} runs code that is only known at run time")
            elif language is None:
                self.line(redirect.body or "", depth + 1)
            else:
                self.code(redirect.body or "", language)
        if not feeds and command.piped:
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
