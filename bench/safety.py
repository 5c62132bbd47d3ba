"""Safety figures: what the sandbox adds to each command, what judging a command costs, and how
many ordinary commands the judge would ask about in ``full-access`` (false alarms)."""

from __future__ import annotations

import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from agent_core.safety.judge import judge
from agent_core.safety.policy import Command, decide
from agent_core.safety.sandbox.confinement import Confinement
from agent_core.safety.sandbox.detect import detect
from agent_core.safety.sandbox.settings import SandboxSettings
from bench.figures import Figure
from tests.test_command_classes import (
    EMPTYING_ORDINARY,
    GLOBAL_OPTIONS_ORDINARY,
    TEARDOWN_ORDINARY,
)
from tests.test_command_judgement import ASKS_IN_FULL_ACCESS, ORDINARY
from tests.test_command_rows import IN_PLACE_ORDINARY, MANAGERS_ORDINARY, ROWS_ORDINARY

# The ordinary commands of the tests' tables: none may ask in full-access.
ORDINARY_COMMANDS = tuple(
    dict.fromkeys(
        [
            *ORDINARY,
            *GLOBAL_OPTIONS_ORDINARY,
            *TEARDOWN_ORDINARY,
            *EMPTYING_ORDINARY,
            *IN_PLACE_ORDINARY,
            *MANAGERS_ORDINARY,
            *ROWS_ORDINARY,
        ]
    )
)

RUNS = 41
ROUNDS = 20


def measure(env: dict[str, str]) -> list[Figure]:
    del env  # measured in this process: no agent involved
    return [_sandbox_cost(), _judgement_cost(), _false_alarms()]


def _sandbox_cost() -> Figure:
    availability = detect(network=True)
    if availability.mechanism is None:
        return Figure("sandbox cost per command", float("nan"), "ms", 15, availability.describe())
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "workspace"
        root.mkdir()
        (root / ".git").mkdir()
        sandbox = Confinement(
            availability, SandboxSettings(), (root,), home=Path.home(), heron_home=Path(scratch)
        )
        command = ["/bin/sh", "-c", "true"]
        bare, confined = [], []
        for _ in range(RUNS):  # interleaved, so both see the same machine
            bare.append(_seconds(lambda: subprocess.run(command, cwd=root, check=True)))

            def sandboxed() -> None:
                launch = sandbox.launch(command, writable=True)
                subprocess.run(launch.argv, cwd=root, check=True)
                sandbox.release(launch)

            confined.append(_seconds(sandboxed))
        sandbox.close()
    added = (statistics.median(confined) - statistics.median(bare)) * 1000
    how = (
        f"{availability.mechanism.name}; median of {RUNS} runs of `sh -c true`, the policy built "
        f"each time: {statistics.median(confined) * 1000:.1f} ms sandboxed, "
        f"{statistics.median(bare) * 1000:.1f} ms bare"
    )
    return Figure("sandbox cost per command, over a bare spawn", added, "ms", 15, how)


def _judgement_cost() -> Figure:
    commands = [*ASKS_IN_FULL_ACCESS, *ORDINARY]
    judge("ls")  # the grammar loads once per process (~20 ms), after `session/new`
    uncached = judge.__wrapped__
    rounds = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        for command in commands:
            uncached(command)
        rounds.append((time.perf_counter() - started) / len(commands))
    how = f"parsed and judged, uncached; the {len(commands)} commands of the tests' table"
    return Figure("command judgement per command", statistics.median(rounds) * 1000, "ms", 1, how)


def _false_alarms() -> Figure:
    asked = [c for c in ORDINARY_COMMANDS if decide("full-access", Command(c))[0] == "ask"]
    how = (
        f"ordinary commands of the tests' tables that ask in full-access, of "
        f"{len(ORDINARY_COMMANDS)}"
        + (f": {', '.join(f'`{c}`' for c in asked[:3])}" if asked else "")
    )
    return Figure("false alarms in full-access", len(asked), "commands", 0, how)


def _seconds(work: object) -> float:
    started = time.perf_counter()
    work()  # type: ignore[operator]
    return time.perf_counter() - started
