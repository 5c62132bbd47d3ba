"""A process group ended as a whole (``ports/groups.py``), with what left the group: a command's
``setsid``, and bubblewrap's sandbox, which starts a session of its own and ties itself to its
parent only once it is set up."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from agent_core.ports.groups import children, terminate_group
from tests.support.processes import running_sleeps, sleep_marker, sleepers, wait_dead
from tests.support.sandbox import sandbox_for

LINUX = pytest.mark.skipif(sys.platform != "linux", reason="/proc and pidfds are Linux's")


async def _until(condition: Callable[[], object]) -> None:
    """Polls ``condition`` (what it looks at, ``/proc``, has nothing to wait on)."""
    with anyio.fail_after(10):
        while not condition():  # noqa: ASYNC110
            await anyio.sleep(0.0002)


@LINUX
def test_a_process_that_left_the_group_dies_with_it() -> None:
    marker = sleep_marker(60)

    async def main() -> list[int]:
        command = ["/bin/sh", "-c", f"setsid sleep {marker} & wait"]
        async with await anyio.open_process(command, start_new_session=True) as process:
            await _until(lambda: running_sleeps(marker))
            [stray] = running_sleeps(marker)
            assert os.getpgid(stray) != process.pid  # a group signal does not reach it
            await terminate_group(process, 0.2)
            return [stray]

    assert wait_dead(anyio.run(main), timeout=5) == []


@LINUX
def test_a_sandbox_stopped_while_it_is_set_up_leaves_nothing_running(tmp_path: Path) -> None:
    """Stopped at moments spread over bubblewrap's set-up: its first process inside leaves the
    group, and sets its parent-death signal only later; stopped in between, it would go on
    to run the command, parentless."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    sandbox = sandbox_for(workspace, home=tmp_path / "home")
    marker = sleep_marker(61)
    launch = sandbox.launch(["/bin/sh", "-c", f"sleep {marker}"], writable=True)

    async def stopped_after(delay: float) -> None:
        started = anyio.open_process(launch.argv, cwd=workspace, start_new_session=True)
        async with await started as process:
            await _until(lambda: children(process.pid) or process.returncode is not None)
            await anyio.sleep(delay)
            await terminate_group(process, 0.05)

    try:
        for delay in [0, 0.0005, 0.001, 0.002, 0.003, 0.005, 0.01] * 3:
            anyio.run(stopped_after, delay)
            assert wait_dead(sleepers(marker), timeout=5) == [], f"stopped after {delay} s"
    finally:
        sandbox.release(launch)
        sandbox.close()
