"""A process group ended as a whole: what every runner of processes does on kill, timeout,
cancel and session end (SIGTERM, a grace period, then SIGKILL)."""

from __future__ import annotations

import os
import signal
from contextlib import suppress

import anyio
import anyio.abc

EXIT_POLL_S = 0.02


async def terminate_group(process: anyio.abc.Process, grace: float) -> None:
    """SIGTERM to the process's whole group, then SIGKILL after ``grace`` seconds (at once when
    it is 0). Safe to call twice."""
    if process.returncode is None and grace > 0:
        signal_group(process.pid, signal.SIGTERM)
        with anyio.move_on_after(grace):
            await process.wait()
    signal_group(process.pid, signal.SIGKILL)  # stragglers that left the leader behind
    await process.wait()


async def exited(process: anyio.abc.Process, timeout: float) -> bool:  # noqa: ASYNC109
    """Whether ``process`` exits within ``timeout`` seconds. Polls the return code: ``wait()``
    would also wait for the pipes, which a leftover child may hold open."""
    with anyio.move_on_after(timeout):
        while process.returncode is None:  # noqa: ASYNC110 - nothing to wait on but the code
            await anyio.sleep(EXIT_POLL_S)
    return process.returncode is not None


def signal_group(pgid: int, sig: signal.Signals) -> None:
    """Signal a process group that may already be gone."""
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
