"""A command line judged by its structure: what in it is dangerous, what cannot be known before
it runs, whether every part only reads, and what "always allow" would remember of it.

Every simple command of the parsed line is judged (pipelines, lists, subshells, substitutions,
heredoc bodies, function bodies), after unwrapping what runs other programs (``launchers.py``
takes the words apart, ``launches.py`` judges what they run): wrappers, runners, containers
and pods (``docker exec``, ``kubectl exec``), shells given a string (``sh -c``, recursively),
interpreters given inline code (``inline.py``), ``eval``, ``xargs``, ``find -exec``, git's
own options. Text piped or fed into a shell, an interpreter, a database client or ``at`` is
judged as that code, and so is a script the line writes and then runs (``sh x.sh``, ``sh <
x.sh``, ``./x.sh``). A program's arguments are read by its grammar
(``grammar.py``: which options take values) before the tables: ``dangerous.py`` (with
``network.py`` and ``teardown.py``), ``emptying.py`` and ``readonly.py``.

The judgement grants questions, not access: a command judged harmless still runs inside the
sandbox, which is what confines it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from agent_core.safety.argv import ALWAYS, Argv, by_program
from agent_core.safety.dangerous import (
    DANGEROUS_BY_PROGRAM,
    GIT_RISKY_KEYS,
    LOADER_VARIABLES,
    network_device,
    reads_credentials,
    write_danger,
)
from agent_core.safety.emitted import emitted
from agent_core.safety.emptying import EMPTYING, emptied_files
from agent_core.safety.findings import Judgement, path_key
from agent_core.safety.grammar import GRAMMARS, readings
from agent_core.safety.inline import SQL_CLIENTS, drops_data
from agent_core.safety.launchers import (
    ELSEWHERE,
    SHELLS,
    SUBCOMMAND_PROGRAMS,
    interpreter_of,
    option_values,
    prefix_of,
    program_name,
    runner,
)
from agent_core.safety.launches import Launches
from agent_core.safety.network import prints_environment, sends_stdin
from agent_core.safety.readonly import READ_ONLY, SYSTEM_BIN
from agent_core.safety.shell import SimpleCommand, Word, parse

MAX_DEPTH = 6  # shells within shells within shells…
WRITERS = frozenset({"tee", "touch", "truncate", "mkdir", "sed", "perl", "mv"})  # every operand
COPIERS = frozenset({"cp", "install", "ln", "rsync", "scp"})  # the last operand, or -t DIR
# Builtins that evaluate the text of their arguments (`declare 'a[$(cmd)]=1'`, `test -v`).
EVALUATING = frozenset(
    {"declare", "typeset", "local", "readonly", "export", "let", "test", "[", "[["}
)
_GIT_VALUED = GRAMMARS["git"].valued
_GIT_FLAGS = GRAMMARS["git"].flags | {"--exec-path", "--version", "--help", "-h"}
_EMPTYING_BY_PROGRAM = by_program(EMPTYING)
DEFERRED = frozenset({"at", "batch"})  # they run shell code from stdin (or -f FILE) later
_GIT_ELSEWHERE = frozenset({"-C", "--work-tree", "--git-dir"})  # paths relative to elsewhere
MOVERS = frozenset({"cd", "pushd", "popd"})  # the line's later paths are relative to elsewhere
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


class _Judge(Launches):
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
                self.scripts.setdefault(path_key(target), None)  # its commands may say more
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
        self.record_writes(command)
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
        if not self.knowable(program) or program.value is None:
            return
        name = program_name(program.value)
        self.moved = self.moved or name in MOVERS
        if name.startswith("git-") and name != "git-filter-repo":  # git-push is git push
            words = [Word("git", "git"), Word(name[4:], name[4:]), *words[1:]]
            name = "git"
        if "/" in program.value or self.downloaded(program):
            self.script_file(program, None, depth)  # ./x.sh the line wrote or downloaded
        args = tuple(words[1:])
        if self.runs_another(name, args, command, depth):
            self.rules(Argv(name, args), command)  # sudo, su: dangerous in themselves
            return
        if found := runner(name, args):
            runner_head, inner = found
            if (name, runner_head[1] if len(runner_head) > 1 else None) in ELSEWHERE:
                self.read_only = False
                self.prefixes.append(" ".join((*head, *runner_head)))
            self.simple(inner, command, depth, (*head, *runner_head))
            return
        argv, prefix, risky = self.program(name, args, command, depth)
        if argv is None:
            return  # it only runs the code judged just now
        self.rules(argv, command)
        self.writes(name, argv)
        self.note(program.value, name, argv, command, (head, prefix, risky))

    def knowable(self, program: Word) -> bool:
        """The program to run is known before it runs."""
        if program.value is None:
            self.unknown(f"the program to run is only known at run time ({program.source})")
            return False
        pattern = any(c in program.value for c in "*?[") and program.value not in ("[", "[[")
        if pattern or "{}" in program.value:
            self.unknown(f"the program to run is a pattern ({program.value})")
            return False
        return True

    def program(
        self, name: str, args: tuple[Word, ...], command: SimpleCommand, depth: int
    ) -> tuple[Argv | None, str | None, bool]:
        """What a program that runs code of its own does with it (git's options, a shell's or
        an interpreter's code, a database client's SQL, ``at``'s commands). Returns its
        arguments (None when it only runs code judged here), what "always allow" remembers
        when not the usual, and whether git's own options make it more than a read."""
        argv = Argv(name, args)
        if name == "git":
            argv, risky = self.git(args, depth)
            return argv, None, risky
        if name in SHELLS:
            prefix = self.shell(name, args, command, depth)
            return (None if prefix is None else argv), prefix, False
        if (language := interpreter_of(name)) is not None:
            return argv, self.interpreter(language, args, command, depth), False
        if name in SQL_CLIENTS:
            fed = emitted(command.upstream) if command.piped else None
            if (written := self.written_input(command)) is not None:
                fed = self.scripts.get(path_key(written.text)) or fed
            texts = [_option_text(w.text) for w in args] + [r.body or "" for r in command.redirects]
            if drops_data([*texts, fed or ""]):
                self.danger(f"{name} runs SQL that drops or deletes data")
        elif name in DEFERRED:
            return argv, self.deferred(name, args, command, depth), False
        elif name == "hash" and any(w.value == "-p" for w in args):
            self.unknown("hash -p makes a program name run another program")
        return argv, None, False

    def deferred(
        self, name: str, args: tuple[Word, ...], command: SimpleCommand, depth: int
    ) -> str:
        """``at``, ``batch``: the shell code they run later is judged now."""
        files = option_values(args, ("-f",))
        if files:
            self.script_file(files[0], None, depth)
            return f"{name} -f {files[0].text}"
        self.stdin_code(command, depth, None, name)
        return name

    def note(
        self,
        written: str,
        name: str,
        argv: Argv,
        command: SimpleCommand,
        remembered: tuple[tuple[str, ...], str | None, bool],
    ) -> None:
        """Whether it only reads; if not, what "always allow" remembers of it."""
        head, prefix, risky = remembered
        condition = READ_ONLY.get(name)
        trusted = "/" not in written or written.rsplit("/", 1)[0] in SYSTEM_BIN
        read_only = (
            trusted
            and condition is not None
            and (condition is ALWAYS or (argv.literal and condition.matches(argv)))
            and not any(r.writes for r in command.redirects)
        )
        if not read_only or risky:
            self.read_only = False
            self.prefixes.append(" ".join((*head, prefix or prefix_of(written, name, argv))))

    def rules(self, argv: Argv, command: SimpleCommand | None = None) -> None:
        """The tables' rows for this program, over each reading of its arguments."""
        dangerous = DANGEROUS_BY_PROGRAM.get(argv.program, ())
        emptying = _EMPTYING_BY_PROGRAM.get(argv.program, ())
        upstream = command.upstream if command is not None else None
        for reading in readings(argv.program, argv.args):
            normal = Argv(argv.program, reading)
            shown = _shown(normal)
            for _, condition, reason in dangerous:
                if condition.matches(normal):
                    self.danger(f"{shown} {reason}")
                elif condition.could_match(normal):
                    self.unknown(
                        f"{shown} has arguments only known at run time, and with some it {reason}"
                    )
            for _, condition, reason in emptying:
                if condition.could_match(normal):
                    self.empties(f"{shown} {reason}", emptied_files(normal))
            if prints_environment(upstream) and sends_stdin(normal):
                self.danger(f"{shown} sends the environment, which holds keys and tokens")

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
            path = word.text.removeprefix("of=")
            self.written(path)
            if name != "tee":  # tee's content is known: see record_writes
                self.scripts[path_key(path)] = None

    def git(self, args: tuple[Word, ...], depth: int) -> tuple[Argv, bool]:
        """Judge git's own options (``-c``, ``--exec-path``) and the commands some of its
        subcommands run. Returns the arguments from the subcommand on, and whether git's own
        options make it more than a read (``-c``, ``-p``)."""
        rest = list(args)
        risky, guess = self.git_options(rest)
        argv = Argv("git", tuple(rest))
        if guess and len(rest) > 1:  # an option git's row does not know may take a value
            self.rules(Argv("git", tuple(rest[1:])))
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

    def git_options(self, rest: list[Word]) -> tuple[bool, bool]:
        """Take git's own options off ``rest``, judging ``-c`` and ``--exec-path``. Returns
        whether they make it more than a read, and whether the last is one git's row does not
        know (so it may have taken what now looks like the subcommand)."""
        risky, unknown = False, False
        while rest and (value := rest[0].value) is not None and value.startswith("-"):
            rest.pop(0)
            option, _, attached = value.partition("=")
            risky = risky or option in _GIT_NOT_READ_ONLY
            self.moved = self.moved or option in _GIT_ELSEWHERE
            unknown = not attached and option not in _GIT_VALUED | _GIT_FLAGS
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
        return risky, unknown


def _option_text(text: str) -> str:
    """An argument without its option: ``--command=SQL`` and ``-cSQL`` are ``SQL``."""
    if text.startswith("--") and "=" in text:
        return text.split("=", 1)[1]
    return text[2:] if text.startswith("-") and not text.startswith("--") else text


def _shown(argv: Argv) -> str:
    """``rm``, or ``git push`` for programs with subcommands."""
    first = argv.operand(0)
    if argv.program in SUBCOMMAND_PROGRAMS and first is not None and first.value:
        return f"{argv.program} {first.value}"
    return argv.program
