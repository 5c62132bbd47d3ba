"""A command line judged by its structure: what in it is dangerous, what cannot be known before
it runs, whether every part only reads, and what "always allow" would remember of it.

Every simple command of the parsed line is judged (pipelines, lists, subshells, substitutions,
function bodies), after unwrapping what runs other programs: wrappers (``sudo``, ``env``,
``timeout``, ``xargs``, ``find -exec``…), runners (``npx``, ``uv run``…), shells given a string
(``sh -c``, recursively), interpreters given inline code (``python -c``, searched for deletes,
downloads and spawns), ``eval``, ``git -c``/``-C``. The tables are in ``commands.py``.

The judgement grants questions, not access: a command judged harmless still runs inside the
sandbox, which is what confines it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from agent_core.safety.argv import ALWAYS, Argv
from agent_core.safety.commands import (
    AWK,
    CODE_DANGERS,
    CODE_UNKNOWN,
    DANGEROUS,
    GIT_PROGRAM_KEYS,
    INTERPRETERS,
    LOADER_VARIABLES,
    READ_ONLY,
    RUNNERS,
    SCRIPT_SUBCOMMANDS,
    SHELL_STRING_ARGS,
    SHELLS,
    SQL_CLIENTS,
    SQL_DANGERS,
    SUBCOMMAND_PROGRAMS,
    WRAPPER_FIRST_OPERAND,
    WRAPPERS,
    interpreter_of,
    names,
    program_name,
)
from agent_core.safety.paths import (
    CREDENTIAL_STORES,
    PROTECTED_NAMES,
    PROTECTED_PREFIX,
    SHELL_STARTUP_FILES,
    is_system_path,
)
from agent_core.safety.shell import SimpleCommand, Word, parse

MAX_DEPTH = 6  # shells within shells within shells…
RUN_TIME = Word("(run time)", None)
STDIN_NAMES = ("-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")
WRITERS = frozenset({"tee", "touch", "truncate", "mkdir", "sed", "perl"})  # every operand
COPIERS = frozenset({"cp", "mv", "install", "ln", "rsync", "scp"})  # the last operand
_CREDENTIALS = re.compile(
    "|".join(
        [rf"(^|[/~]){re.escape(store)}($|/)" for store in CREDENTIAL_STORES]
        + [
            r"\bid_(rsa|dsa|ecdsa|ed25519)\b",
            r"/etc/(shadow|gshadow|sudoers)\b",
            r"/proc/[^/\s]+/environ\b",
            r"(^|[/~])\.heron/config\.toml\b",
        ]
    )
)
_STARTUP = re.compile("|".join(rf"(^|/){re.escape(name)}$" for name in SHELL_STARTUP_FILES))
_DEVICE = re.compile(r"^/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|loop|mapper/|md|sr|mem|kmem|port)")
_AWK_VALUED = frozenset({"-F", "-v", "--assign", "--field-separator"})
_GIT_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix"})
_GIT_NOT_READ_ONLY = frozenset({"-c", "--config-env", "--exec-path", "-p", "--paginate"})


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


@lru_cache(maxsize=512)
def judge(command: str) -> Judgement:
    findings = _Findings()
    findings.line(command, 0)
    return findings.result()


@dataclass
class _Findings:
    dangers: list[str] = field(default_factory=list[str])
    unknowns: list[str] = field(default_factory=list[str])
    read_only: bool = True
    prefixes: list[str] = field(default_factory=list[str])

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

    # The line and its statements.

    def line(self, source: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            self.unknown("it nests shells too deeply to read")
            return
        parsed = parse(source)
        for problem in parsed.problems:
            self.unknown(problem)
        for name, called in parsed.functions:
            if name in called:
                self.danger(f"it defines a function that calls itself ({name}), a fork bomb")
        for redirect in parsed.redirects:
            if redirect.writes:
                self.read_only = False
                self.written(redirect.target.text if redirect.target else "")
        for command in parsed.commands:
            if command.assignments and command.words:
                self.read_only = False  # FOO=1 cmd: the variable may change what cmd does
            for name, _ in command.assignments:
                if name in LOADER_VARIABLES:
                    self.unknown(f"it sets {name}, which changes what programs load or run")
            for word in (*command.words, *(r.target for r in command.redirects if r.target)):
                if _CREDENTIALS.search(word.text):
                    self.danger(f"it reads credentials ({word.text})")
            if command.words:
                self.simple(list(command.words), command, depth)

    def written(self, path: str) -> None:
        """``path`` is written to: by a redirection, or as a writing command's operand."""
        if path.startswith(("/dev/tcp/", "/dev/udp/")):
            self.danger(f"it opens a network connection ({path})")
        elif _DEVICE.match(path):
            self.danger(f"it writes raw to a disk device ({path})")
        elif is_system_path(path):
            self.danger(f"it writes to a system path ({path})")
        elif _STARTUP.search(path):
            self.danger(f"it changes a shell start-up file ({path})")
        else:
            parts = [p.lower() for p in path.split("/") if p]
            if any(p in PROTECTED_NAMES for p in parts) or (
                parts and parts[-1].startswith(PROTECTED_PREFIX)
            ):
                self.danger(f"it changes a protected path ({path})")

    # One simple command, after whatever ran it.

    def simple(
        self, words: list[Word], command: SimpleCommand, depth: int, head: tuple[str, ...] = ()
    ) -> None:
        """``head``: the runner words in front of it (``uv run``), for its prefix."""
        program = words[0]
        if program.value is None:
            self.unknown(f"the program to run is only known at run time ({program.source})")
            return
        if any(c in program.value for c in "*?[") or "{}" in program.value:
            self.unknown(f"the program to run is a pattern ({program.value})")
            return
        name = program_name(program.value)
        args = tuple(words[1:])
        argv = Argv(name, args)
        if self.runs_another(name, args, command, depth):
            self.rules(argv)  # sudo, su: dangerous in themselves
            return
        if runner := _runner(name, args):
            runner_head, inner = runner
            self.simple(inner, command, depth, (*head, *runner_head))
            return
        prefix: str | None = None  # what "always allow" remembers, when not the usual
        risky_git = False
        if name == "git":
            argv, risky_git = self.git(args, depth)
        elif name in SHELLS:
            prefix = self.shell(name, args, command, depth)
            if prefix is None:
                return  # it only runs the code judged just now
        elif (language := interpreter_of(name)) is not None:
            prefix = self.interpreter(language, args, command, depth)
        elif name in SQL_CLIENTS:
            texts = [w.text for w in args] + [r.body or "" for r in command.redirects]
            if any(re.search(SQL_DANGERS, t, re.IGNORECASE) for t in texts):
                self.danger(f"{name} runs SQL that drops or deletes data")
        self.rules(argv)
        self.writes(name, argv)
        condition = READ_ONLY.get(name)
        read_only = (
            condition is not None
            and (condition is ALWAYS or (argv.literal and condition.matches(argv)))
            and not any(r.writes for r in command.redirects)
        )
        if not read_only or risky_git:
            self.read_only = False
            self.prefixes.append(" ".join((*head, prefix or _prefix(program.value, name, argv))))

    def rules(self, argv: Argv) -> None:
        shown = _shown(argv)
        for programs, condition, reason in DANGEROUS:
            if argv.program not in programs:
                continue
            if condition.matches(argv):
                self.danger(f"{shown} {reason}")
            elif condition.could_match(argv):
                self.unknown(
                    f"{shown} has arguments only known at run time, and with some it {reason}"
                )

    def writes(self, name: str, argv: Argv) -> None:
        targets: Sequence[Word] = ()
        if name in WRITERS and (name not in ("sed", "perl") or argv.has_flag(("-i",))):
            targets = argv.operands[1:] if name in ("sed", "perl") else argv.operands
        elif name in COPIERS and argv.operands:
            targets = argv.operands[-1:]
        elif name == "dd":
            targets = [
                Word(w.source, v[3:])
                for w in argv.operands
                if (v := w.value) is not None and v.startswith("of=")
            ]
        for word in targets:
            if word.value is not None:
                self.written(word.value)

    # What runs other programs.

    def runs_another(
        self, name: str, args: tuple[Word, ...], command: SimpleCommand, depth: int
    ) -> bool:
        """Judge what ``name`` runs, when it runs something; True when it did."""
        if name == "eval":
            if all(w.literal for w in args):
                self.line(" ".join(w.value or "" for w in args), depth + 1)
            else:
                self.unknown("it evaluates text built at run time as shell code (eval)")
            return True
        if name in ("source", "."):
            script = args[0] if args else None
            if script is not None and (script.value is None or script.value in STDIN_NAMES):
                self.unknown("it sources a script produced at run time")
            self.read_only = False
            self.prefixes.append(f"{name} {script.text}" if script is not None else name)
            return True
        if name in ("alias", "trap"):
            for word in args[:1] if name == "trap" else args:
                code = (word.value or "").partition("=")[2] if name == "alias" else word.value
                if word.value is None or code is None:
                    self.unknown(f"it defines shell code built at run time ({name})")
                elif code:
                    self.line(code, depth + 1)
            return True
        if name in SHELL_STRING_ARGS and self.shell_string(name, args, depth):
            return True
        if name == "xargs":
            inner = _xargs_command(args)
            self.simple(inner or [Word("echo", "echo")], command, depth)
            return True
        if name == "find":
            for segment in _find_exec(args):
                self.simple(segment, command, depth)
            return False  # find itself is judged too
        if name in WRAPPERS:
            if name == "command" and any(w.value in ("-v", "-V") for w in args[:1]):
                return True  # it only says what a name is
            inner = self.unwrap(name, args, depth)
            if inner:
                self.simple(inner, command, depth)
            elif name not in ("env", "exec"):  # env alone prints; exec alone redirects
                self.read_only = False
            return True
        return False

    def unwrap(self, name: str, args: tuple[Word, ...], depth: int) -> list[Word]:
        valued = WRAPPERS[name]
        rest = list(args)
        positional = WRAPPER_FIRST_OPERAND.get(name, 0)
        while rest:
            value = rest[0].value
            if value is None:
                break
            if value == "--":
                rest.pop(0)
                break
            if name == "env" and "=" in value and not value.startswith("-"):
                if value.partition("=")[0] in LOADER_VARIABLES:
                    self.unknown(f"it sets {value.partition('=')[0]}, which changes what runs")
                rest.pop(0)
            elif value.startswith("-") and value != "-":
                rest.pop(0)
                if value in valued and rest:
                    option_value = rest.pop(0)
                    if name == "env" and value in ("-S", "--split-string"):
                        if option_value.value is None:
                            self.unknown("it runs a command built at run time (env -S)")
                        else:
                            self.line(option_value.value, depth + 1)
            elif positional:
                rest.pop(0)
                positional -= 1
            else:
                break
        return rest

    def shell_string(self, name: str, args: tuple[Word, ...], depth: int) -> bool:
        """``su -c CMD``, ``flock f -c CMD``, ``watch CMD…``: the string is a shell command."""
        if name == "watch":
            rest = _after_options(list(args), frozenset({"-n", "--interval", "-q", "--equexit"}))
            self.code_string(rest, depth, "watch")
            return True
        options = SHELL_STRING_ARGS[name]
        for index, word in enumerate(args[:-1]):
            if word.value in options:
                self.code_string([args[index + 1]], depth, name)
                return True
        return False

    def code_string(self, words: Sequence[Word], depth: int, name: str) -> None:
        if all(w.literal for w in words):
            self.line(" ".join(w.value or "" for w in words), depth + 1)
        else:
            self.unknown(f"it runs shell code built at run time ({name})")

    def shell(
        self, name: str, args: tuple[Word, ...], command: SimpleCommand, depth: int
    ) -> str | None:
        """Judge the code a shell runs. Returns what "always allow" remembers of it: the shell
        and its script file; None when it only runs code judged here (``-c``, stdin)."""
        rest = list(args)
        if name == "busybox":
            if rest and rest[0].value not in SHELLS:
                if rest[0].value is not None:
                    self.simple(rest, command, depth)  # busybox rm -rf x is rm
                else:
                    self.unknown("busybox runs a program known only at run time")
                return None
            rest = rest[1:]
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
            rest = _after_options(list(args), _AWK_VALUED)
            if not any(w.value in ("-f", "--file") for w in args):
                self.inline(rest[0] if rest else None, language)
            return language
        if language == "deno":
            if args and args[0].value == "eval":
                self.inline(args[1] if len(args) > 1 else None, language)
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
        for pattern, reason in CODE_DANGERS:
            if re.search(pattern, text):
                self.danger(f"its {language} code {reason}")
        if re.search(CODE_UNKNOWN, text):
            self.unknown(f"its {language} code builds code at run time")
        if re.search(SQL_DANGERS, text, re.IGNORECASE):
            self.danger(f"its {language} code runs SQL that drops or deletes data")
        if _CREDENTIALS.search(text):
            self.danger(f"its {language} code reads credentials")

    def git(self, args: tuple[Word, ...], depth: int) -> tuple[Argv, bool]:
        """Judge git's own options (``-c``, ``--exec-path``) and the commands some of its
        subcommands run. Returns the arguments from the subcommand on, and whether git's own
        options make it more than a read (``-c``, ``-p``)."""
        rest = list(args)
        risky = False
        while rest and (value := rest[0].value) is not None and value.startswith("-"):
            rest.pop(0)
            option, _, attached = value.partition("=")
            risky = risky or option in _GIT_NOT_READ_ONLY
            setting = attached if attached else None
            if option in _GIT_VALUED and not attached and rest:
                setting = rest.pop(0).value
                if setting is None:
                    self.unknown("git gets an option known only at run time")
                    continue
            if option in ("-c", "--config-env") and setting is not None:
                key = setting.partition("=")[0].lower()
                if any(re.match(pattern, key) for pattern in GIT_PROGRAM_KEYS):
                    self.danger(f"git -c {key} sets an option that runs a program")
            elif option == "--exec-path" and attached:
                self.danger("git runs its commands from another folder (--exec-path)")
        argv = Argv("git", tuple(rest))
        subcommand = rest[0].value if rest else None
        if subcommand == "submodule" and argv.words_start(("submodule", "foreach")):
            self.code_string(argv.after(2).args, depth, "git submodule foreach")
        elif subcommand == "rebase":
            for index, word in enumerate(rest[:-1]):
                if word.value in ("-x", "--exec"):
                    self.code_string([rest[index + 1]], depth, "git rebase --exec")
        elif subcommand == "bisect" and argv.words_start(("bisect", "run")):
            inner = list(argv.after(2).args)
            if inner:
                self.simple(inner, SimpleCommand(tuple(inner)), depth)
        return argv, risky


_XARGS_VALUED = names(
    "-I -n -L -l -P -d -E -e -s -a --arg-file --delimiter --max-args --max-procs --replace "
    "--max-lines --eof --max-chars"
)


def _after_options(words: list[Word], valued: frozenset[str]) -> list[Word]:
    """``words`` from the first operand on (options, and the values of ``valued`` ones, gone)."""
    rest = list(words)
    while rest and (value := rest[0].value) is not None and value.startswith("-") and value != "-":
        rest.pop(0)
        if value == "--":
            break
        if value in valued and rest:
            rest.pop(0)
    return rest


def _xargs_command(args: tuple[Word, ...]) -> list[Word]:
    """The command xargs runs, with what it fills in from its input left to run time."""
    replace: str | None = None
    for index, word in enumerate(args):
        value = word.value or ""
        if value in ("-I", "--replace") and index + 1 < len(args):
            replace = args[index + 1].value or "{}"
        elif value.startswith(("-i", "--replace=")) or (value.startswith("-I") and len(value) > 2):
            replace = value.partition("=")[2] or value[2:] or "{}"
    inner = _after_options(list(args), _XARGS_VALUED)
    if replace is None:
        return [*inner, RUN_TIME] if inner else []
    return [RUN_TIME if replace in (w.value or "") else w for w in inner]


def _find_exec(args: tuple[Word, ...]) -> list[list[Word]]:
    """The commands of ``-exec``/``-execdir``/``-ok``/``-okdir``, with ``{}`` filled at run time."""
    segments: list[list[Word]] = []
    current: list[Word] | None = None
    for word in args:
        if current is None:
            if word.value in ("-exec", "-execdir", "-ok", "-okdir"):
                current = []
        elif word.value in (";", "+", "\\;"):
            segments.append(current)
            current = None
        else:
            current.append(RUN_TIME if word.value is not None and "{}" in word.value else word)
    if current:
        segments.append(current)
    return [segment for segment in segments if segment]


def _runner(name: str, args: tuple[Word, ...]) -> tuple[tuple[str, ...], list[Word]] | None:
    """(the runner's words, the program it runs), for ``npx jest`` or ``uv run pytest``."""
    rest = list(args)
    head: tuple[str, ...] = (name,)
    valued = RUNNERS.get((name, None))
    if valued is None:
        operands = _after_options(rest, frozenset())
        subcommand = operands[0].value if operands else None
        valued = RUNNERS.get((name, subcommand))
        if valued is None or subcommand is None:
            return None
        rest = operands[1:]
        head = (name, subcommand)
    inner = _after_options(rest, valued)
    if name == "direnv" and inner:
        inner = inner[1:]  # direnv exec DIR command
    return (head, inner) if inner else None


def _shown(argv: Argv) -> str:
    """``rm``, or ``git push`` for programs with subcommands."""
    first = argv.operand(0)
    if argv.program in SUBCOMMAND_PROGRAMS and first is not None and first.value:
        return f"{argv.program} {first.value}"
    return argv.program


def _prefix(written: str, name: str, argv: Argv) -> str:
    """What "always allow" remembers: the program as written, and its subcommand (and the
    script an ``npm run`` names)."""
    first, second = argv.operand(0), argv.operand(1)
    if name not in SUBCOMMAND_PROGRAMS or first is None or not first.value:
        return written
    if first.value in SCRIPT_SUBCOMMANDS and second is not None and second.value:
        return f"{written} {first.value} {second.value}"
    return f"{written} {first.value}"
