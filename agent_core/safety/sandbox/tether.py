"""A command that dies with Heron: ``tethered(argv, os.getpid())`` is the command line.

bubblewrap's ``--die-with-parent`` and PID namespace end everything a sandboxed command
started when Heron dies, ``kill -9`` included (but in the moment bubblewrap sets the sandbox
up: see ``ports/groups.py``). A command outside that sandbox (no sandbox on this machine, or
turned off, a command the user let run outside, Seatbelt on macOS, MCP servers) has nothing
like it, and its process group would outlive a killed Heron.

This small program goes in front of such a command. It leaves a watcher behind and then
becomes the command (``exec``): the command keeps the pid, process group, session and exit
status Heron started, so nothing else changes. The watcher is detached (its parent exits at
once, so the command never sees an extra child) and sits in a group of its own, out of reach
of the signals Heron sends the command's group. It waits for one of two things:

- the command ends and its process group is empty: the watcher exits;
- Heron ends: the watcher sends SIGKILL to the processes of the command's session that left
  its group (``timeout`` and job-control shells make groups of their own; Linux, through
  ``/proc``), then to the command's group.

Heron's end is seen through a pidfd (Linux 5.3+) the moment it happens; the watcher follows
Heron's process, not the thread that started the command, which ``PR_SET_PDEATHSIG`` would
(and that signal would reach the command only, not what it starts). Without pidfds (macOS,
older kernels) the pids are checked every ``POLL_S``. When the command does not lead its
process group (an editor's terminal may start it in the editor's), only the command is
killed.

Limits: a process that starts a session of its own (``setsid``, a daemon) leaves Heron's reach,
as it leaves a group kill; a group the command made for itself is found only while it is in
the command's session; without pidfds a recycled pid could hide Heron's end for a while.

It runs in a Python of its own (Heron's interpreter, ``-I -S``: the user's ``PYTHON*``
variables cannot change it) and imports only what the interpreter has built in (``_signal``
rather than ``signal``, which loads ``enum``): a command starts ~10 ms later than it would
without it, against ~4 ms for bubblewrap.
"""

from __future__ import annotations

import os
import select
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Protocol

    class _Signals(Protocol):
        SIG_DFL: int
        SIGPIPE: int
        SIGXFSZ: int
        SIGKILL: int

        def signal(self, signalnum: int, handler: int, /) -> object: ...


# How Heron runs this file: imported rather than run as a script, so its compiled form in
# __pycache__ is used (compiling it each time cost ~3 ms); appended to the path, after the
# standard library, so no module of this folder can stand in for one of it.
BOOTSTRAP = (
    "import sys; sys.path.append(sys.argv.pop(1)); import tether; sys.exit(tether.main(sys.argv))"
)
POLL_S = 0.5  # without pidfds, or once the command is gone: how often pids are looked at
NOT_FOUND, NOT_RUNNABLE = 127, 126  # what a shell answers for a command it cannot run


def tethered(argv: Sequence[str], pid: int) -> list[str]:
    """``argv`` started so that it dies with process ``pid`` (Heron's)."""
    if not sys.executable:  # an embedded interpreter: no Python to run this with
        return list(argv)
    here = os.path.dirname(os.path.abspath(__file__))
    return [sys.executable, "-I", "-S", "-c", BOOTSTRAP, here, str(pid), *argv]


def _signals() -> _Signals:
    try:
        found: _Signals = __import__("_signal")  # CPython's; the public module wraps it
    except ImportError:
        found = __import__("signal")
    return found


def main(argv: list[str]) -> int:
    if len(argv) < 3 or not argv[1].isdigit():
        sys.stderr.write("usage: tether.py <pid to die with> <command> [args...]\n")
        return 2
    signals = _signals()
    heron, command, me = int(argv[1]), argv[2:], os.getpid()
    try:
        watches = (_pidfd(heron), _pidfd(me))  # opened before the fork: no pid can be recycled
    except ProcessLookupError:
        return 128 + signals.SIGKILL  # Heron is already gone: the command does not start
    leads = (os.getpgrp() == me, os.getsid(0) == me)  # Heron started it in a new session
    helper = os.fork()
    if helper == 0:
        if os.fork() == 0:
            _watch(heron, me, watches, leads, signals.SIGKILL)
        os._exit(0)  # the watcher is left without a parent: it is nobody's child to reap
    os.waitpid(helper, 0)
    for number in (signals.SIGPIPE, signals.SIGXFSZ):
        signals.signal(number, signals.SIG_DFL)  # Python ignores them; exec keeps what is ignored
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        sys.stderr.write(f"heron: cannot run {command[0]}: {exc.strerror}\n")
        return NOT_FOUND if isinstance(exc, FileNotFoundError) else NOT_RUNNABLE


def _watch(
    heron: int,
    command: int,
    watches: tuple[int | None, int | None],
    leads: tuple[bool, bool],
    kill: int,
) -> None:
    """The watcher: until the command's group is empty, or Heron ends; never returns.
    ``leads``: whether the command leads its process group, and its session."""
    try:
        leads_group, leads_session = leads
        os.setpgid(0, 0)  # a group of its own: Heron's signals to the command's miss it
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # no end of the command's pipes stays open here
            os.dup2(null, fd)
        heron_fd, command_fd = watches
        while True:
            if _gone(heron, heron_fd):
                _end(command, leads_group, leads_session, kill)
                break
            running = not _gone(command, command_fd)
            if not running and not (leads_group and _group_alive(command)):
                break
            if heron_fd is not None and command_fd is not None and running:
                select.select([heron_fd, command_fd], [], [])
            elif heron_fd is not None:
                select.select([heron_fd], [], [], POLL_S)
            else:
                time.sleep(POLL_S)
    finally:
        os._exit(0)


def _pidfd(pid: int) -> int | None:
    """A descriptor that becomes readable when ``pid`` ends (Linux 5.3+), or None where there
    is none (then the pid is polled). Raises ``ProcessLookupError`` when it is already gone."""
    opener = getattr(os, "pidfd_open", None)
    try:
        if opener is not None:
            return int(opener(pid))
    except ProcessLookupError:
        raise
    except OSError:
        pass  # an older kernel, or a seccomp filter that refuses it: poll instead
    if _gone(pid, None):
        raise ProcessLookupError(pid)
    return None


def _gone(pid: int, fd: int | None) -> bool:
    """Whether ``pid`` has ended, even if nobody has reaped it yet (where there is ``/proc``:
    on macOS a killed Heron is seen once the editor has reaped it, which editors do at once)."""
    if fd is not None:
        return bool(select.select([fd], [], [], 0)[0])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # another user's: a recycled pid, the risk of polling
    return _state(pid) in ("Z", "X")


def _state(pid: int | str) -> str | None:
    """The state letter of ``/proc/<pid>/stat`` (Linux), or None."""
    fields = _stat(pid)
    return fields[0] if fields else None


def _stat(pid: int | str) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the name: state, ppid, group, session..."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].decode().split()
    except (OSError, IndexError):
        return None


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _end(command: int, leads_group: bool, leads_session: bool, kill: int) -> None:
    """Heron is gone: SIGKILL to the command and what it started."""
    me = os.getpid()
    if leads_session and os.path.isdir("/proc"):  # what left the group, still in the session
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) != me and _session_of(entry) == command:
                _send(int(entry), kill)
    _send(-command if leads_group else command, kill)


def _send(pid: int, number: int) -> None:
    """``kill(2)``: a negative pid is a process group."""
    try:
        os.kill(pid, number)
    except OSError:
        pass  # gone meanwhile


def _session_of(pid: str) -> int | None:
    fields = _stat(pid)
    return int(fields[3]) if fields and len(fields) > 3 else None


if __name__ == "__main__":
    sys.exit(main(sys.argv))
