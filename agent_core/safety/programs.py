"""Readers of programs that carry code or options of their own, neither shells nor
interpreters: git (its own options, and what ``submodule foreach``, ``rebase --exec`` and
``bisect run`` run), database clients (their SQL), ``at`` and ``batch`` (shell code run
later) and ``hash -p``.
"""

from __future__ import annotations

import re

from agent_core.safety.argv import Argv
from agent_core.safety.dangerous import GIT_RISKY_KEYS
from agent_core.safety.emitted import emitted
from agent_core.safety.findings import Findings, path_key
from agent_core.safety.grammar import GRAMMARS
from agent_core.safety.inline import drops_data
from agent_core.safety.launchers import option_values
from agent_core.safety.reading import Call, Reading, Walk, code_string, script_file, stdin_code
from agent_core.safety.rows import rules
from agent_core.safety.shell import SimpleCommand, Word

_GIT_VALUED = GRAMMARS["git"].valued
_GIT_FLAGS = GRAMMARS["git"].flags | {"--exec-path", "--version", "--help", "-h"}
_GIT_ELSEWHERE = frozenset({"-C", "--work-tree", "--git-dir"})  # paths relative to elsewhere
_GIT_NOT_READ_ONLY = frozenset({"-c", "--config-env", "--exec-path", "-p", "--paginate"})


def git(walk: Walk, call: Call) -> Reading:
    """Judge git's own options (``-c``, ``--exec-path``) and the commands some of its
    subcommands run. Reads as the arguments from the subcommand on, risky when git's own
    options make it more than a read (``-c``, ``-p``)."""
    depth = call.depth
    rest = list(call.args)
    risky, guess = _git_options(walk.findings, rest)
    argv = Argv("git", tuple(rest))
    if guess and len(rest) > 1:  # an option git's row does not know may take a value
        rules(walk.findings, Argv("git", tuple(rest[1:])))
    subcommand = rest[0].value if rest else None
    if subcommand == "submodule" and argv.words_start(("submodule", "foreach")):
        code_string(walk, argv.after(2).args, depth, "git submodule foreach")
    elif subcommand == "rebase":
        for index, word in enumerate(rest[:-1]):
            if word.value in ("-x", "--exec"):
                code_string(walk, [rest[index + 1]], depth, "git rebase --exec")
    elif subcommand == "bisect" and argv.words_start(("bisect", "run")):
        inner = list(argv.after(2).args)
        if inner:
            walk.simple(inner, SimpleCommand(tuple(inner)), depth)
    return Reading(argv, risky=risky)


def _git_options(findings: Findings, rest: list[Word]) -> tuple[bool, bool]:
    """Take git's own options off ``rest``, judging ``-c`` and ``--exec-path``. Returns
    whether they make it more than a read, and whether the last is one git's row does not
    know (so it may have taken what now looks like the subcommand)."""
    risky, unknown = False, False
    while rest and (value := rest[0].value) is not None and value.startswith("-"):
        rest.pop(0)
        option, _, attached = value.partition("=")
        risky = risky or option in _GIT_NOT_READ_ONLY
        findings.moved = findings.moved or option in _GIT_ELSEWHERE
        unknown = not attached and option not in _GIT_VALUED | _GIT_FLAGS
        setting = attached if attached else None
        if option in _GIT_VALUED and not attached and rest:
            setting = rest.pop(0).value
            if setting is None:
                findings.unknown("git gets an option known only at run time")
                continue
        if option in ("-c", "--config-env") and setting is not None:
            key = setting.partition("=")[0].lower()
            if GIT_RISKY_KEYS.match(key):
                findings.danger(f"git -c {key} changes what git runs or does")
        elif option == "--exec-path" and attached:
            findings.danger("git runs its commands from another folder (--exec-path)")
    return risky, unknown


def sql_client(walk: Walk, call: Call) -> None:
    """The SQL a database client is given: in its options, a heredoc, a pipe, a file this
    line wrote; otherwise it is a plain program."""
    command = call.command
    fed = emitted(command.upstream) if command.piped else None
    if (written := walk.findings.written_input(command)) is not None:
        fed = walk.findings.scripts.get(path_key(written.text)) or fed
    texts = [_option_text(w.text) for w in call.args] + [r.body or "" for r in command.redirects]
    texts += _sql_files(walk.findings, call, [*texts, fed or ""])
    if drops_data([*texts, fed or ""]):
        walk.findings.danger(f"{call.name} runs SQL that drops or deletes data")


# The options that name a file of SQL to run, by client (psql -f x.sql, sqlite3 -init x.sql).
_SQL_FILE_OPTIONS: dict[str, tuple[str, ...]] = {
    "psql": ("-f", "--file"),
    "usql": ("-f", "--file"),
    "sqlite3": ("-init",),
    "sqlite": ("-init",),
    "duckdb": ("-init", "-f"),
    "sqlcmd": ("-i",),
    "snowsql": ("-f", "--filename"),
    "clickhouse-client": ("--queries-file",),
    "clickhouse": ("--queries-file",),
}
# The clients' own commands that run a file: psql \i, mysql source and \., sqlite3 .read.
_SQL_INCLUDE = re.compile(r"(?:^|[\s;])(?:\\i|\\ir|\\include|source|\\\.|\.read)\s+(\S+)", re.I)


def _sql_files(findings: Findings, call: Call, texts: list[str]) -> list[str]:
    """The SQL of the files this line wrote that the client is told to run."""
    named = [w.text for w in option_values(call.args, _SQL_FILE_OPTIONS.get(call.name, ()))]
    named += [m.group(1).strip("'\";") for t in texts for m in _SQL_INCLUDE.finditer(t)]
    return [findings.scripts.get(path_key(name)) or "" for name in named]


def deferred(walk: Walk, call: Call) -> Reading:
    """``at``, ``batch``: the shell code they run later (stdin, or ``-f FILE``) is judged now."""
    files = option_values(call.args, ("-f",))
    if files:
        script_file(walk, files[0], None, call.depth)
        return Reading(call.argv, f"{call.name} -f {files[0].text}")
    stdin_code(walk, call.command, call.depth, None, call.name)
    return Reading(call.argv, call.name)


def hash_path(walk: Walk, call: Call) -> None:
    """``hash -p PATH name``: the name runs another program from then on."""
    if any(w.value == "-p" for w in call.args):
        walk.findings.unknown("hash -p makes a program name run another program")


def _option_text(text: str) -> str:
    """An argument without its option: ``--command=SQL`` and ``-cSQL`` are ``SQL``."""
    if text.startswith("--") and "=" in text:
        return text.split("=", 1)[1]
    return text[2:] if text.startswith("-") and not text.startswith("--") else text
