"""Interactive programs: the keys table, the screen text, and waiting detection on a real
pseudo-terminal with real processes, unconfined and in the real sandbox."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import get_args

import pytest

from agent_core.errors import ToolError
from agent_core.ports.interactive import WithTerminals
from agent_core.ports.keys import KEYS, Key, keystrokes
from agent_core.ports.pty_process import PtyProcess, with_terminal
from agent_core.ports.runner import LocalRunner
from agent_core.ports.unattended import UNATTENDED, unattended
from agent_core.ports.waiting import waiting_for_input
from agent_core.safety.sandbox.confinement import Confinement
from agent_core.safety.sandbox.settings import SandboxSettings
from tests.support.processes import alive, sleep_marker, sleepers, wait_dead
from tests.support.sandbox import require_bubblewrap

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(sys.platform != "linux", reason="/proc and bubblewrap are Linux's"),
]
ASK = "import sys; name = input('name? '); print('hello', name); sys.exit(3)"
DEADLINE_S = 5.0


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[Confinement]:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    confinement = Confinement(
        require_bubblewrap(),
        SandboxSettings(),
        (workspace,),
        home=tmp_path / "home",
        heron_home=tmp_path / "heron-home",
    )
    yield confinement
    confinement.close()


def shell(command: str) -> list[str]:
    return with_terminal(["/bin/sh", "-c", command])


async def spawn(argv: list[str], tmp_path: Path) -> PtyProcess:
    return await PtyProcess.spawn(argv, cwd=tmp_path, environment=unattended({}), limit=4096)


async def until(program: PtyProcess, reached: Callable[[], bool]) -> float:
    """Seconds until ``reached()`` (fails after ``DEADLINE_S``). For an exit, ``settle`` alone
    is not enough: it also returns once the output is quiet, which on a loaded machine can come
    before the exit."""
    started = time.monotonic()
    while not reached():
        assert time.monotonic() - started < DEADLINE_S, program.printed()
        await program.settle(0.2)
    return time.monotonic() - started


def test_every_key_has_the_bytes_a_terminal_sends() -> None:
    assert set(KEYS) == set(get_args(Key))
    assert KEYS["Enter"] == b"\r" and KEYS["Ctrl-C"] == b"\x03" and KEYS["Ctrl-D"] == b"\x04"
    assert [KEYS[k] for k in ("Up", "Down", "Right", "Left")] == [
        b"\x1b[A",
        b"\x1b[B",
        b"\x1b[C",
        b"\x1b[D",
    ]
    assert KEYS["Tab"] == b"\t" and KEYS["Escape"] == b"\x1b"
    assert keystrokes("y\nno\r\n", ["Down", "Enter"]) == b"y\rno\r\x1b[B\r"
    assert keystrokes("é") == "é".encode()


def test_the_unattended_table_is_laid_over_what_was_inherited() -> None:
    laid = unattended({"PAGER": "less", "EDITOR": "vim", "PATH": "/bin"})
    assert laid["PAGER"] == "cat" and laid["EDITOR"] == "true" and laid["PATH"] == "/bin"
    assert laid["GIT_TERMINAL_PROMPT"] == "0"
    assert "CI" not in laid  # weighed and left out: it changes what tests do
    assert len({s.name for s in UNATTENDED}) == len(UNATTENDED)


async def test_a_script_asking_is_waiting_and_finishes_with_the_answer(tmp_path: Path) -> None:
    program = await spawn(shell(f'python3 -c "{ASK}"'), tmp_path)
    try:
        await until(program, program.waiting)
        assert program.printed()[0].endswith("name? ")
        await program.send(keystrokes("Ada\n"))
        await until(program, lambda: program.ended)
        result = program.result()
        assert result.exit_code == 3 and not result.waiting
        assert "hello Ada" in result.output
    finally:
        await program.close()


async def test_a_sleeping_program_is_not_waiting_for_input(tmp_path: Path) -> None:
    marker = sleep_marker(40)
    program = await spawn(shell(f"echo go; sleep {marker}"), tmp_path)
    try:
        await program.settle()
        assert "go" in program.printed()[0]
        assert waiting_for_input(program._master) is False  # pyright: ignore[reportPrivateUsage]
        assert not program.result().waiting and program.result().running
    finally:
        await program.close()
    assert wait_dead(sleepers(marker), timeout=5) == []


async def test_a_repl_polling_its_terminal_is_waiting(tmp_path: Path) -> None:
    program = await spawn(shell("python3 -q"), tmp_path)
    try:
        await until(program, program.waiting)
        await program.send(keystrokes("6 * 7\n"))
        await until(program, program.waiting)
        assert "42" in program.printed()[0]
        await program.send(keystrokes("", ["Ctrl-D"]))
        await until(program, lambda: program.ended)
        assert program.result().exit_code == 0
    finally:
        await program.close()


async def test_ctrl_c_stops_a_program_in_the_sandbox(tmp_path: Path, sandbox: Confinement) -> None:
    marker = sleep_marker(41)
    launch = sandbox.launch(shell(f"sleep {marker}"), writable=True)
    program = await spawn(launch.argv, tmp_path)
    try:
        deadline = time.monotonic() + DEADLINE_S
        while os.tcgetpgrp(program._master) <= 0:  # pyright: ignore[reportPrivateUsage]
            assert time.monotonic() < deadline, "the terminal should be claimed"
            await program.settle(0.1)
        await program.send(keystrokes("", ["Ctrl-C"]))
        await until(program, lambda: program.ended)
        assert program.result().exit_code == 130  # the shell, ended by SIGINT
        assert [p for p in sleepers(marker) if alive(p)] == []
    finally:
        await program.close()


async def test_waiting_is_seen_through_the_sandboxs_pid_namespace(
    tmp_path: Path, sandbox: Confinement
) -> None:
    launch = sandbox.launch(shell(f'python3 -c "{ASK}"'), writable=True)
    program = await spawn(launch.argv, tmp_path)
    try:
        assert await until(program, program.waiting) < DEADLINE_S
        assert waiting_for_input(program._master) is True  # pyright: ignore[reportPrivateUsage]
        await program.send(keystrokes("Grace\n"))
        await until(program, lambda: program.ended)
        assert program.result().exit_code == 3 and "hello Grace" in program.result().output
    finally:
        await program.close()


async def test_interactive_programs_sit_beside_the_runners_background_processes(
    tmp_path: Path,
) -> None:
    marker = sleep_marker(42)
    environment = unattended({"PATH": "/usr/bin:/bin"})
    runner = WithTerminals(LocalRunner(environment), environment)
    plain = await runner.start(["sleep", marker], cwd=tmp_path, output_limit=1000)
    talking = await runner.start(
        shell(f"read x; sleep {marker}"), cwd=tmp_path, output_limit=1000, interactive=True
    )
    assert (plain, talking) == ("bg-1", "tty-1")
    assert (await runner.output(talking)).waiting
    with pytest.raises(ToolError, match="takes no input"):
        await runner.send(plain, b"x\r")
    with pytest.raises(ToolError, match=f"running: {plain}"):
        await runner.output("bg-9")
    result = await runner.send(talking, b"go\r")
    assert result.running and not result.waiting
    await runner.close()
    assert wait_dead(sleepers(marker), timeout=5) == []


async def test_a_runner_alone_offers_no_interactive_program(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="not offered"):
        await LocalRunner({}).start(["sh"], cwd=tmp_path, output_limit=10, interactive=True)
