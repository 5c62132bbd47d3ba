"""A command line judged by its structure: what in it is dangerous, what cannot be known before
it runs, whether every part only reads, and what "always allow" would remember of it.

Every simple command of the parsed line is judged (pipelines, lists, subshells, substitutions,
heredoc bodies, function bodies), after unwrapping what runs other programs (``launchers.py``):
wrappers, runners, shells given a string (``sh -c``, recursively), interpreters given inline
code (``inline.py``), ``eval``, ``xargs``, ``find -exec``, git's own options. The tables are
``dangerous.py`` and ``readonly.py``.

The judgement grants questions, not access: a command judged harmless still runs inside the
sandbox, which is what confines it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from agent_core.safety.argv import ALWAYS, Argv
from agent_core.safety.dangerous import (
    DANGEROUS,
    GIT_RISKY_KEYS,
    LOADER_VARIABLES,
    network_device,
    reads_credentials,
    write_danger,
)
from agent_core.safety.findings import STDIN_NAMES, Findings, Judgement
from agent_core.safety.inline import SQL_CLIENTS, drops_data
from agent_core.safety.launchers import (
    MULTICALL,
    SHELL_STRING_OPTIONS,
    SHELLS,
    SUBCOMMAND_PROGRAMS,
    WRAPPER_POSITIONALS,
    WRAPPERS,
    after_options,
    exec_commands,
    interpreter_of,
    option_values,
    parallel_command,
    prefix_of,
    program_name,
    runner,
    xargs_command,
)
from agent_core.safety.readonly import READ_ONLY, SYSTEM_BIN
from agent_core.safety.shell import SimpleCommand, Word, parse

MAX_DEPTH = 6  # shells within shells within shells…
WRITERS = frozenset({"tee", "touch", "truncate", "mkdir", "sed", "perl", "mv"})  # every operand
COPIERS = frozenset({"cp", "install", "ln", "rsync", "scp"})  # the last operand, or -t DIR
# Builtins that evaluate the text of their arguments (`declare 'a[$(cmd)]=1'`, `test -v`).
EVALUATING = frozenset(
    {"declare", "typeset", "local", "readonly", "export", "let", "test", "[", "[["}
)
_GIT_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix"})
_GIT_NOT_READ_ONLY = frozenset({"-c", "--config-env", "--exec-path", "-p", "--paginate"})
_DOWNLOAD_FLAGS = {"curl": ("-o", "--output"), "wget": ("-O", "--output-document")}


@lru_cache(maxsize=512)
def judge(command: str) -> Judgement:
    findings = _Judge()
    try:
        findings.line(command, 0)
    except RecursionError:
        findings.unknown("it nests too deeply to read")
    return findings.result()


def hides_code(text: str) -> bool:
    """Text that bash may still run: a command substitution or backquotes inside a string."""
    return "$(" in text or "`" in text


class _Judge(Findings):
    # The line and its statements.

    def line(self, source: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            self.unknown("it nests shells too deeply to read")
            return
        parsed = parse(source)
        for problem in parsed.problems:
            self.unknown(problem)
        if parsed.arithmetic:
            self.read_only = False  # bash evaluates a variable's text in arithmetic
        for name, called in parsed.functions:
            if name in called:
                self.danger(f"it defines a function that calls itself ({name}), a fork bomb")
        for redirect in parsed.redirects:
            target = redirect.target.text if redirect.target else ""
            if network_device(target):
                self.danger(f"it opens a network connection ({target})")
            elif redirect.writes:
                self.read_only = False
                self.written(target)
        for command in parsed.commands:
            self.statement(command, depth)

    def statement(self, command: SimpleCommand, depth: int) -> None:
        """What a simple command carries besides its program: assignments, credentials."""
        if command.assignments and command.words:
            self.read_only = False  # FOO=1 cmd: the variable may change what cmd does
        for name, value in command.assignments:
            if name in LOADER_VARIABLES:
                self.unknown(f"it sets {name}, which changes what programs load or run")
            if value.literal and hides_code(value.text):
                self.unknown(f"it stores shell code in {name}, which bash can run later")
        for word in (*command.words, *(r.target for r in command.redirects if r.target)):
            if reads_credentials(word.text):
                self.danger(f"it reads credentials ({word.text})")
        if not command.words:
            return
        program = command.words[0].value
        if program in EVALUATING and any(w.literal and hides_code(w.text) for w in command.words):
            self.unknown(f"{program} evaluates text that holds shell code")
        self.simple(list(command.words), command, depth)

    def written(self, path: str) -> None:
        """``path`` is written to: by a redirection, or as a writing command's operand."""
        if (reason := write_danger(path)) is not None:
            self.danger(reason)

    # One simple command, after whatever ran it.

    def simple(
        self, words: list[Word], command: SimpleCommand, depth: int, head: tuple[str, ...] = ()
    ) -> None:
        """``head``: the runner words in front of it (``uv run``), for its prefix."""
        program = words[0]
        if program.value is None:
            self.unknown(f"the program to run is only known at run time ({program.source})")
            return
        pattern = any(c in program.value for c in "*?[") and program.value not in ("[", "[[")
        if pattern or "{}" in program.value:
            self.unknown(f"the program to run is a pattern ({program.value})")
            return
        if program.value in self.downloads or program_name(program.value) in self.downloads:
            self.unknown(f"it runs a file it has just downloaded ({program.value})")
        name = program_name(program.value)
        if name.startswith("git-") and name != "git-filter-repo":  # git-push is git push
            words = [Word("git", "git"), Word(name[4:], name[4:]), *words[1:]]
            name = "git"
        args = tuple(words[1:])
        argv = Argv(name, args)
        if self.runs_another(name, args, command, depth):
            self.rules(argv)  # sudo, su: dangerous in themselves
            return
        if found := runner(name, args):
            runner_head, inner = found
            self.simple(inner, command, depth, (*head, *runner_head))
            return
        prefix: str | None = None  # what "always allow" remembers, when not the usual
        risky = False
        if name == "git":
            argv, risky = self.git(args, depth)
        elif name in SHELLS:
            prefix = self.shell(name, args, command, depth)
            if prefix is None:
                return  # it only runs the code judged just now
        elif (language := interpreter_of(name)) is not None:
            prefix = self.interpreter(language, args, command, depth)
        elif name in SQL_CLIENTS:
            if drops_data([w.text for w in args] + [r.body or "" for r in command.redirects]):
                self.danger(f"{name} runs SQL that drops or deletes data")
        elif name == "hash" and any(w.value == "-p" for w in args):
            self.unknown("hash -p makes a program name run another program")
        self.rules(argv)
        self.writes(name, argv)
        condition = READ_ONLY.get(name)
        trusted = "/" not in program.value or program.value.rsplit("/", 1)[0] in SYSTEM_BIN
        read_only = (
            trusted
            and condition is not None
            and (condition is ALWAYS or (argv.literal and condition.matches(argv)))
            and not any(r.writes for r in command.redirects)
        )
        if not read_only or risky:
            self.read_only = False
            self.prefixes.append(" ".join((*head, prefix or prefix_of(program.value, name, argv))))

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
        """The paths a command writes, judged like redirections; and what it downloads."""
        targets: Sequence[Word] = ()
        in_place = argv.has_flag(("-i", "--in-place"))
        if name in WRITERS and (name not in ("sed", "perl") or in_place):
            targets = argv.operands[1:] if name in ("sed", "perl") else argv.operands
        elif name in COPIERS and argv.operands:
            targets = argv.operands[-1:]
        elif name == "dd":
            targets = [w for w in argv.operands if w.text.startswith("of=")]
        if name in COPIERS:  # cp -t DIR, --target-directory=DIR
            targets = [*targets, *option_values(argv.args, ("-t", "--target-directory"))]
        if name == "tar":  # where it extracts
            targets = [*targets, *option_values(argv.args, ("-C", "--directory"))]
        if name in _DOWNLOAD_FLAGS:
            downloaded = option_values(argv.args, _DOWNLOAD_FLAGS[name])
            targets = [*targets, *downloaded]
            self.downloads.update(w.text for w in downloaded)
            self.downloads.update(w.text.lstrip("./") for w in downloaded)
        for word in targets:
            self.written(word.text.removeprefix("of="))

    # What runs other programs.

    def runs_another(
        self, name: str, args: tuple[Word, ...], command: SimpleCommand, depth: int
    ) -> bool:
        """Judge what ``name`` runs, when it runs something; True when it did."""
        if name == "eval":
            self.code_string(args, depth, "eval")
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
                if word.value is None:
                    self.unknown(f"it defines shell code built at run time ({name})")
                elif code:
                    self.line(code, depth + 1)
            return True
        if name in SHELL_STRING_OPTIONS and self.shell_string(name, args, depth):
            return True
        if name in MULTICALL:  # busybox rm -rf x is rm
            if args:
                self.simple(list(args), command, depth)
            return True
        if name in ("xargs", "parallel"):
            inner = xargs_command(args) if name == "xargs" else parallel_command(args)
            self.simple(inner or [Word("echo", "echo")], command, depth)
            return True
        if name in ("find", "fd", "fdfind"):
            for segment in exec_commands("fd" if name == "fdfind" else name, args):
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
        positionals = WRAPPER_POSITIONALS.get(name, 0)
        if name == "taskset" and any(w.value in ("-c", "--cpu-list") for w in args):
            positionals = 0  # the CPU list is -c's value, not a mask before the program
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
            elif name == "env" and value.startswith(("-S", "--split-string")):
                rest.pop(0)
                attached = value.split("=", 1)[1] if "=" in value else value[2:]
                if (value.startswith("--") and "=" not in value) or value == "-S":
                    string = rest.pop(0) if rest else Word("", "")
                else:
                    string = Word(attached, attached)
                self.code_string([string], depth, "env -S")
            elif value.startswith("-") and value != "-":
                rest.pop(0)
                if value in valued and rest:
                    rest.pop(0)
            elif positionals:
                rest.pop(0)
                positionals -= 1
            else:
                break
        return rest

    def shell_string(self, name: str, args: tuple[Word, ...], depth: int) -> bool:
        """``su -c CMD``, ``flock f -c CMD``, ``npx -c CMD``, ``watch CMD…``: judge the string."""
        if name == "watch":
            self.code_string(after_options(args, frozenset({"-n", "--interval"})), depth, "watch")
            return True
        options = SHELL_STRING_OPTIONS[name]
        for index, word in enumerate(args):
            value = word.value or ""
            if value in options and index + 1 < len(args):
                self.code_string([args[index + 1]], depth, name)
                return True
            if any(value.startswith(f"{o}=") for o in options if o.startswith("--")):
                self.code_string([Word(value, value.split("=", 1)[1])], depth, name)
                return True
        return False

    def code_string(self, words: Sequence[Word], depth: int, name: str) -> None:
        if all(w.literal for w in words):
            self.line(" ".join(w.value or "" for w in words), depth + 1)
        else:
            self.unknown(f"it runs shell code built at run time ({name})")

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
                if GIT_RISKY_KEYS.match(key):
                    self.danger(f"git -c {key} changes what git runs or does")
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


def _shown(argv: Argv) -> str:
    """``rm``, or ``git push`` for programs with subcommands."""
    first = argv.operand(0)
    if argv.program in SUBCOMMAND_PROGRAMS and first is not None and first.value:
        return f"{argv.program} {first.value}"
    return argv.program
