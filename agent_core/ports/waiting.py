"""Whether the program in a pseudo-terminal is waiting for input: read from Linux's ``/proc``.

The signal: the terminal's foreground process group (``tcgetpgrp`` on the master side, which
the kernel reports as Heron sees pids, inside a sandbox's PID namespace or not), then for each
process of that group ``/proc/<pid>/syscall``: blocked in ``read`` on a terminal descriptor
(a script's ``input()``, ``read`` in a shell, ``cat``), or in ``poll``/``select``/``epoll``
with the terminal as its stdin (a line editor: Python's REPL, node, a prompt library). A
shell waiting for its child (``wait4``) counts for nothing either way; a process running, or
blocked in anything else (``sleep``, a socket, a disk), means not waiting. Checked on Linux
6.18 (x86_64) as root and as an unprivileged user under bubblewrap (``--unshare-pid``, in a
user namespace): ``syscall``, ``wchan`` and ``fd/`` of the sandboxed processes are readable by
their owner; with Yama's ``ptrace_scope`` of 1 they stay readable, being Heron's descendants.

Where ``syscall`` cannot be read (an architecture missing from the table, a stricter
``ptrace_scope``), ``/proc/<pid>/wchan`` stands in (``wait_woken``: a terminal read; the poll
functions by name) with stdin a terminal. Where neither can say (no ``/proc``: macOS), the
answer is None and the caller falls back to "no output for a while and still running".
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path
from typing import Literal

PROC = Path("/proc")
Seen = Literal["reading", "child", "busy", "unknown"]

# Syscall numbers by machine (``uname -m``): reads, waits on descriptors, waits for a child.
READS = {"x86_64": {0, 17, 19}, "aarch64": {63, 65, 67}}  # read, pread64, readv
POLLS = {
    "x86_64": {7, 23, 232, 270, 271, 281, 441},  # poll select epoll_wait pselect6 ppoll …
    "aarch64": {22, 72, 73, 441},  # epoll_pwait pselect6 ppoll epoll_pwait2
}
CHILD_WAITS = {"x86_64": {61, 247}, "aarch64": {95, 260}}  # wait4, waitid
TERMINAL_READ_WCHANS = ("wait_woken", "n_tty_read")
POLL_WCHANS = ("poll_schedule_timeout", "do_select", "do_sys_poll", "ep_poll", "do_epoll_wait")


def waiting_for_input(master: int) -> bool | None:
    """Whether the foreground of the terminal whose master side is ``master`` is blocked
    reading it; None when this machine cannot tell."""
    try:
        group = os.tcgetpgrp(master)
    except OSError:
        return None
    if group <= 0 or not PROC.is_dir():
        return None
    seen = [_seen(pid) for pid in _members(group)]
    if not seen or "unknown" in seen:
        return None
    if "busy" in seen:
        return False
    return "reading" in seen


def _members(group: int) -> list[int]:
    """The live processes of process group ``group`` (field 5 of ``stat``): looked for among
    the leader's descendants (a few files), or in all of ``/proc`` once the leader is gone."""
    try:
        candidates = _family(group)
    except OSError:
        candidates = [int(e.name) for e in PROC.iterdir() if e.name.isdigit()]
    found: list[int] = []
    for pid in candidates:
        with suppress(OSError, IndexError, ValueError):  # gone while we looked
            fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == group and fields[0] not in ("Z", "X"):
                found.append(pid)
    return found


def _family(pid: int) -> list[int]:
    """``pid`` and its descendants, through ``task/<tid>/children`` (OSError: ``pid`` is gone
    or the kernel does not list children)."""
    family, queue = [pid], [pid]
    while queue:
        parent = queue.pop()
        for task in (PROC / str(parent) / "task").iterdir():
            with suppress(OSError, ValueError):
                children = [int(c) for c in (task / "children").read_text().split()]
                family += children
                queue += children
    return family


def _seen(pid: int) -> Seen:
    """What one process of the foreground is doing."""
    try:
        state = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "child"  # gone: it counts for nothing
    if state != "S":
        return "busy"  # running, in a disk wait, or stopped (Ctrl-Z)
    machine = os.uname().machine
    try:
        call = (PROC / str(pid) / "syscall").read_text().split()
    except OSError:
        call = []
    if call and call[0].isdigit() and machine in READS:
        number = int(call[0])
        if number in READS[machine]:
            return "reading" if _terminal(pid, int(call[1], 16)) else "busy"
        if number in POLLS[machine]:
            return "reading" if _terminal(pid, 0) else "busy"
        return "child" if number in CHILD_WAITS[machine] else "busy"
    return _seen_by_wchan(pid)


def _seen_by_wchan(pid: int) -> Seen:
    try:
        wchan = (PROC / str(pid) / "wchan").read_text().strip()
    except OSError:
        return "unknown"
    if wchan == "do_wait":
        return "child"
    if wchan.startswith(TERMINAL_READ_WCHANS + POLL_WCHANS):
        return "reading" if _terminal(pid, 0) else "busy"
    return "unknown" if wchan in ("", "0") else "busy"


def _terminal(pid: int, fd: int) -> bool:
    try:
        target = str((PROC / str(pid) / "fd" / str(fd)).readlink())
    except OSError:
        return False
    return target.startswith(("/dev/pts/", "/dev/tty"))
