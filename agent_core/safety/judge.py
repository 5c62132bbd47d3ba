"""A command line judged by its structure: what in it is dangerous, what cannot be known before
it runs, whether every part only reads, and what "always allow" would remember of it.

``Walker`` walks the parsed line (pipelines, lists, subshells, substitutions, heredoc bodies,
function bodies) down to each simple command, and records what it finds in a ``Findings``
(``findings.py``). A program with a row in ``readers.py`` is handed to its reader with the
walker: shells, interpreters, database clients, ``at``, git's own options, wrappers, runners,
``xargs``, ``find -exec``…, which judge the code or the program it runs as the line's own. A
program's arguments are then read by its grammar (``grammar.py``) against the tables
(``rows.py``: ``dangerous.py``, ``emptying.py``; ``readonly.py``), and what it writes is
judged like a redirection.

The judgement grants questions, not access: a command judged harmless still runs inside the
sandbox, which is what confines it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from agent_core.safety.argv import ALWAYS, Argv
from agent_core.safety.dangerous import (
    LOADER_VARIABLES,
    network_device,
    reads_credentials,
    write_danger,
)
from agent_core.safety.findings import Findings, Judgement, path_key
from agent_core.safety.launchers import option_values, prefix_of, program_name
from agent_core.safety.readers import reader_of
from agent_core.safety.reading import Call, Reading, script_file
from agent_core.safety.readonly import READ_ONLY, SYSTEM_BIN
from agent_core.safety.rows import rules
from agent_core.safety.shell import SimpleCommand, Word, parse

MAX_DEPTH = 6  # shells within shells within shells…
WRITERS = frozenset({"tee", "touch", "truncate", "mkdir", "sed", "perl", "mv"})  # every operand
COPIERS = frozenset({"cp", "install", "ln", "rsync", "scp"})  # the last operand, or -t DIR
# Builtins that evaluate the text of their arguments (`declare 'a[$(cmd)]=1'`, `test -v`).
EVALUATING = frozenset(
    {"declare", "typeset", "local", "readonly", "export", "let", "test", "[", "[["}
)
MOVERS = frozenset({"cd", "pushd", "popd"})  # the line's later paths are relative to elsewhere
_DOWNLOAD_FLAGS = {"curl": ("-o", "--output"), "wget": ("-O", "--output-document")}


@lru_cache(maxsize=512)
def judge(command: str) -> Judgement:
    walker = Walker()
    try:
        walker.line(command, 0)
    except RecursionError:
        walker.findings.unknown("it nests too deeply to read")
    return walker.findings.result()


def hides_code(text: str) -> bool:
    """Text that bash may still run: a command substitution or backquotes inside a string."""
    return "$(" in text or "`" in text


class Walker:
    """Walks one line; what it finds goes into ``findings``."""

    __slots__ = ("findings",)

    def __init__(self) -> None:
        self.findings = Findings()

    # The line and its statements.

    def line(self, source: str, depth: int) -> None:
        findings = self.findings
        if depth > MAX_DEPTH:
            findings.unknown("it nests shells too deeply to read")
            return
        parsed = parse(source)
        for problem in parsed.problems:
            findings.unknown(problem)
        if parsed.arithmetic:
            findings.read_only = False  # bash evaluates a variable's text in arithmetic
        for name, called in parsed.functions:
            if name in called:
                findings.danger(f"it defines a function that calls itself ({name}), a fork bomb")
        for redirect in parsed.redirects:
            target = redirect.target.text if redirect.target else ""
            if network_device(target):
                findings.danger(f"it opens a network connection ({target})")
            elif redirect.writes:
                findings.read_only = False
                self.written(target)
                findings.scripts.setdefault(path_key(target), None)  # its commands may say more
        for command in parsed.commands:
            self.statement(command, depth)

    def statement(self, command: SimpleCommand, depth: int) -> None:
        """What a simple command carries besides its program: assignments, credentials."""
        findings = self.findings
        if command.assignments and command.words:
            findings.read_only = False  # FOO=1 cmd: the variable may change what cmd does
        for name, value in command.assignments:
            if name in LOADER_VARIABLES:
                findings.unknown(f"it sets {name}, which changes what programs load or run")
            if value.literal and hides_code(value.text):
                findings.unknown(f"it stores shell code in {name}, which bash can run later")
        for word in (*command.words, *(r.target for r in command.redirects if r.target)):
            if reads_credentials(word.text):
                findings.danger(f"it reads credentials ({word.text})")
        findings.record_writes(command)
        if not command.words:
            return
        program = command.words[0].value
        if program in EVALUATING and any(w.literal and hides_code(w.text) for w in command.words):
            findings.unknown(f"{program} evaluates text that holds shell code")
        self.simple(list(command.words), command, depth)

    def written(self, path: str) -> None:
        """``path`` is written to: by a redirection, or as a writing command's operand."""
        if (reason := write_danger(path)) is not None:
            self.findings.danger(reason)

    # One simple command, after whatever ran it.

    def simple(
        self, words: list[Word], command: SimpleCommand, depth: int, head: tuple[str, ...] = ()
    ) -> None:
        """``head``: the runner words in front of it (``uv run``), for its prefix."""
        program = words[0]
        if not self.knowable(program) or program.value is None:
            return
        name = program_name(program.value)
        findings = self.findings
        findings.moved = findings.moved or name in MOVERS
        if name.startswith("git-") and name != "git-filter-repo":  # git-push is git push
            words = [Word("git", "git"), Word(name[4:], name[4:]), *words[1:]]
            name = "git"
        if "/" in program.value or findings.downloaded(program):
            script_file(self, program, None, depth)  # ./x.sh the line wrote or downloaded
        call = Call(name, tuple(words[1:]), command, depth, head)
        reader = reader_of(name)
        reading = reader(self, call) if reader is not None else None
        if reading is None:
            reading = Reading(call.argv)  # nothing special: the tables alone judge it
        if reading.argv is None:
            return  # it only runs the code judged just now
        rules(findings, reading.argv, command.upstream)
        if reading.launcher:
            return  # what it runs was judged; sudo, su: dangerous in themselves
        self.writes(name, reading.argv)
        self.note(program.value, name, reading.argv, command, (head, reading.prefix, reading.risky))

    def knowable(self, program: Word) -> bool:
        """The program to run is known before it runs."""
        if program.value is None:
            self.findings.unknown(
                f"the program to run is only known at run time ({program.source})"
            )
            return False
        pattern = any(c in program.value for c in "*?[") and program.value not in ("[", "[[")
        if pattern or "{}" in program.value:
            self.findings.unknown(f"the program to run is a pattern ({program.value})")
            return False
        return True

    def note(
        self,
        written: str,
        name: str,
        argv: Argv,
        command: SimpleCommand,
        remembered: tuple[tuple[str, ...], str | None, bool],
    ) -> None:
        """Whether it only reads; if not, what "always allow" remembers of it: the runner
        words in front of it, and its reader's prefix or the usual one."""
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
            self.findings.read_only = False
            self.findings.prefixes.append(
                " ".join((*head, prefix or prefix_of(written, name, argv)))
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
        downloads = self.findings.downloads
        if name in _DOWNLOAD_FLAGS:
            downloaded = option_values(argv.args, _DOWNLOAD_FLAGS[name])
            targets = [*targets, *downloaded]
            downloads.update(w.text for w in downloaded)
            downloads.update(w.text.lstrip("./") for w in downloaded)
        for word in targets:
            path = word.text.removeprefix("of=")
            self.written(path)
            if name != "tee":  # tee's content is known: see record_writes
                self.findings.scripts[path_key(path)] = None
