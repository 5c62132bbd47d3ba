"""Is a process still there? (A zombie waiting for a parent that will never reap it is not.)"""

from __future__ import annotations

import itertools
import os
import subprocess
import time
from pathlib import Path


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):  # gone, or going while we read
        return False
    return state not in ("Z", "X")


_MARKS = itertools.count()


def sleep_marker(seconds: int) -> str:
    """A ``sleep`` argument of about ``seconds`` that no other test, in this process or in
    another worker of a parallel run, uses: the processes are found by their command line."""
    return f"{seconds}.{os.getpid():07d}{next(_MARKS):03d}"


def sleepers(marker: str) -> list[int]:
    """The processes running ``sleep <marker>`` (found by command line: a sandboxed process
    has its own pid inside the sandbox, but the host sees it all the same)."""
    out = subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True, text=True)
    return [int(pid) for pid in out.stdout.split() if int(pid) != os.getpid()]


def running_sleeps(marker: str) -> list[int]:
    """The marked processes that are ``sleep`` itself: the command runs, not just its sandbox
    (bubblewrap's command line carries the mark too) or a shell's fork on its way to it."""
    return [pid for pid in sleepers(marker) if name_of(pid) == "sleep"]


def name_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def described(pids: list[int]) -> str:
    """``ps``'s lines for ``pids``: parent, group, session and state, for a failure to show."""
    if not pids:
        return ""
    fields = "pid,ppid,pgid,sid,stat,etimes,args"
    listed = subprocess.run(
        ["ps", "-o", fields, "-p", ",".join(map(str, pids))], capture_output=True, text=True
    )
    return listed.stdout


def wait_dead(pids: list[int], timeout: float = 10.0) -> list[int]:
    """The pids still alive after ``timeout`` seconds (empty when all are gone)."""
    deadline = time.monotonic() + timeout
    while (left := [p for p in pids if alive(p)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left
