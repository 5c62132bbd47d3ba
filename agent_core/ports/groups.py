"""A process group ended as a whole: what every runner of processes does on kill, timeout,
cancel and session end (SIGTERM, a grace period, then SIGKILL).

A group signal misses what leaves the group: bubblewrap's sandbox starts a session of its own
(``--new-session``), and a command may (``setsid``). bubblewrap ties its sandbox to its own
process with a parent-death signal, but sets it only once the sandbox is set up: a sandbox
stopped in its first milliseconds would run on, parentless. So the leader's descendants are
noted before the group is signalled (``descendants``: all of them, as one may leave the group
meanwhile), and killed after it, through pidfds, so that a pid reused meanwhile is never hit
(Linux; elsewhere, none are found).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Generator
from contextlib import contextmanager, suppress
from pathlib import Path

import anyio
import anyio.abc

EXIT_POLL_S = 0.02
MOST_DESCENDANTS = 256  # noted at most: a fork bomb is the sandbox's to contain


async def terminate_group(process: anyio.abc.Process, grace: float) -> None:
    """SIGTERM to the process's whole group, then SIGKILL after ``grace`` seconds (at once when
    it is 0), to the group and to every descendant it had, in the group or not. Safe to call
    twice."""
    with killed_with(process):
        if process.returncode is None and grace > 0:
            signal_group(process.pid, signal.SIGTERM)
            with anyio.move_on_after(grace):
                await process.wait()
        signal_group(process.pid, signal.SIGKILL)  # stragglers that left the leader behind
    await process.wait()


@contextmanager
def killed_with(leader: anyio.abc.Process) -> Generator[None]:
    """The descendants ``leader`` has now get SIGKILL on the way out, after the group's own
    end inside: those that left the group (or leave it meanwhile) with it. None once it has
    been waited for: its pid may be another process's by then, and its orphans are init's."""
    held = descendants(leader.pid) if leader.returncode is None else []
    try:
        yield
    finally:
        for pidfd in held:
            with suppress(ProcessLookupError, PermissionError):  # gone; set-user-ID
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            os.close(pidfd)


def descendants(leader: int) -> list[int]:
    """Pidfds of ``leader``'s descendants, read from ``/proc`` (none where there is no
    ``/proc`` or no pidfds)."""
    if not hasattr(os, "pidfd_open"):
        return []
    found: list[int] = []
    waiting = [leader]
    while waiting:
        parent = waiting.pop()
        for child in children(parent):
            if len(found) == MOST_DESCENDANTS:
                return found
            with suppress(OSError):  # gone meanwhile
                pidfd = os.pidfd_open(child)
                if parent_of(child) == parent:  # still that child: not a pid reused since
                    found.append(pidfd)
                    waiting.append(child)
                else:
                    os.close(pidfd)
    return found


def children(pid: int) -> list[int]:
    """The pids of ``pid``'s children, from ``/proc`` (none when it is gone or there is none)."""
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return []
    found: list[int] = []
    for task in tasks:
        with suppress(OSError, ValueError):
            found += map(int, (task / "children").read_text().split())
    return found


def parent_of(pid: int) -> int | None:
    """``pid``'s parent, from ``/proc/<pid>/stat`` (its fourth field, after the name that may
    hold spaces and parentheses)."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
    except (OSError, ValueError, IndexError):
        return None


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
