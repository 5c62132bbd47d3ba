"""The tables' rows for one program, over each reading of its arguments (``grammar.py``):
``dangerous.py`` (with ``network.py`` and ``teardown.py``) and ``emptying.py``, recorded in
the line's ``Findings``.
"""

from __future__ import annotations

from agent_core.safety.argv import Argv, by_program
from agent_core.safety.dangerous import DANGEROUS_BY_PROGRAM
from agent_core.safety.emptying import EMPTYING, emptied_files
from agent_core.safety.findings import Findings
from agent_core.safety.grammar import readings
from agent_core.safety.launchers import SUBCOMMAND_PROGRAMS
from agent_core.safety.network import prints_environment, sends_stdin
from agent_core.safety.shell import SimpleCommand

_EMPTYING_BY_PROGRAM = by_program(EMPTYING)


def rules(findings: Findings, argv: Argv, upstream: SimpleCommand | None = None) -> None:
    """``upstream``: the command piped into it, when a simple one (what it sends)."""
    dangerous = DANGEROUS_BY_PROGRAM.get(argv.program, ())
    emptying = _EMPTYING_BY_PROGRAM.get(argv.program, ())
    for reading in readings(argv.program, argv.args):
        normal = Argv(argv.program, reading)
        shown = _shown(normal)
        for _, condition, reason in dangerous:
            if condition.matches(normal):
                findings.danger(f"{shown} {reason}")
            elif condition.could_match(normal):
                findings.unknown(
                    f"{shown} has arguments only known at run time, and with some it {reason}"
                )
        for _, condition, reason in emptying:
            if condition.could_match(normal):
                findings.empties(f"{shown} {reason}", emptied_files(normal))
        if prints_environment(upstream) and sends_stdin(normal):
            findings.danger(f"{shown} sends the environment, which holds keys and tokens")


def _shown(argv: Argv) -> str:
    """``rm``, or ``git push`` for programs with subcommands."""
    first = argv.operand(0)
    if argv.program in SUBCOMMAND_PROGRAMS and first is not None and first.value:
        return f"{argv.program} {first.value}"
    return argv.program
