"""Heron's own git calls, immune to the repository's configuration.

A repository can carry configuration that runs programs when git merely looks at it:
``core.fsmonitor`` on ``git status``, filter drivers on files whose timestamps changed, hooks,
pagers, external diffs. Heron reads the repository's state when a session starts, before anyone
has looked at what arrived in the folder, so every call here switches all of that off: the
system and global configuration are not read, every option that names a program is overridden,
and the repository's own filter, diff and merge drivers are blanked by name (read first with
``git config``, which runs nothing). Where a sandbox is active the calls run inside it too,
read-only and without network.

No wait on git is open-ended (``GitWatch``): a repository can make git block for ever (a FIFO
named ``.gitignore`` is opened and waited on), so every call has a deadline, runs in a process
group of its own that is killed whole when the deadline passes or the work is stopped, and a
stop from another thread (a cancelled turn) ends it at once.
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO

from msgspec import Struct, field

from agent_core.errors import HeronError
from agent_core.safety.paths import installed

TIMEOUT_S = 2.0
# Options that would run a program, each set to something that runs none.
HARDENING = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.editor=true",
    "core.sshCommand=false",
    "core.askPass=",
    "core.gitProxy=",
    "diff.external=",
    "credential.helper=",
    "sequence.editor=true",
    "gpg.program=false",
    "log.showSignature=false",
    "protocol.allow=never",
    "status.submoduleSummary=false",
)
ENVIRONMENT = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_EDITOR": "true",
    "LC_ALL": "C",
}
# Keys of the repository's own configuration that name a program to run.
DRIVER_KEYS = r"^(filter|diff|merge)\..*\.(clean|smudge|process|textconv|command|driver)$"
Wrap = Callable[[list[str]], list[str]]  # puts a command inside the sandbox


def _no_wrap(argv: list[str]) -> list[str]:
    return argv


class GitWaitError(HeronError):
    """A git call did not end: past its deadline, stopped, or found waiting on something
    that never comes (the message says which, for the user)."""


class GitStopped(GitWaitError):
    """The work was stopped (its turn was cancelled); its git processes are killed."""


# Why git is stuck, when it can be told (None: not known), found within the seconds given.
Explain = Callable[[float], str | None]


class GitWatch:
    """The git processes of one piece of work: one deadline for all of them, each in a
    process group of its own, and ``stop()``, callable from any thread, that kills them all.

    ``stall_s``/``explain``: when a wait passes ``stall_s``, ``explain`` is asked once why
    (it may look at the workspace, for as long as the deadline leaves); a reason ends the work
    at once with that reason, None lets the wait go on to the deadline. A wait that ends in
    time costs what ``communicate`` without a timeout would: the process's end is polled
    beside its pipes, never slept for.

    A group of its own is what lets a stop reach what git started; it also means a git still
    running when Heron is killed outright is not killed with Heron's group."""

    def __init__(
        self, limit_s: float, *, stall_s: float = math.inf, explain: Explain | None = None
    ) -> None:
        self.limit_s, self._stall_s = limit_s, stall_s
        self._deadline = time.monotonic() + limit_s
        self._explain = explain  # asked once, then None
        self._lock = threading.Lock()
        # Each running process: what it runs, and when it started.
        self._running: dict[subprocess.Popen[bytes], tuple[str, float]] = {}
        self._ended: GitWaitError | None = None  # set once: why nothing more may run

    @property
    def stopped(self) -> bool:
        return self._ended is not None

    def remaining(self) -> float:
        return self._deadline - time.monotonic()

    def start(
        self,
        command: list[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        piped: bool = False,
        label: str = "git",
    ) -> subprocess.Popen[bytes]:
        """``command`` started in a process group of its own; raises once the work ended.
        ``label``: how a timeout names it (``git ls-files``)."""
        with self._lock:
            if self._ended is not None:
                raise self._ended
            process = subprocess.Popen(
                command,
                cwd=cwd,
                stdin=subprocess.PIPE if piped else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=dict(env),
                start_new_session=True,
            )
            self._running[process] = (label, time.monotonic())
            return process

    def wait(
        self, process: subprocess.Popen[bytes], stdin: bytes | None = None
    ) -> tuple[bytes, bytes]:
        """What ``process`` printed on stdout and stderr once it ended; raises ``GitWaitError``
        (every process of the work killed) at the deadline, on a stop or a stall explained."""
        label, began = self._running.get(process, ("git", time.monotonic()))
        try:
            ended = _pidfd(process.pid)
            if ended is None:
                out, err = self._communicate(process, stdin, label, began)
            else:
                try:
                    out, err = self._exchange(process, stdin, ended, label, began)
                finally:
                    os.close(ended)
            if self._ended is not None:  # killed by a stop meanwhile: its output is cut
                raise self._ended
            return out, err
        finally:
            with self._lock:
                self._running.pop(process, None)

    def stop(self, why: GitWaitError | None = None) -> None:
        """End the work: every running git killed with its group, none started after."""
        with self._lock:
            if self._ended is None:
                self._ended = why or GitStopped("stopped")
            for process in self._running:
                if process.returncode is None:  # not yet reaped: its group is its own
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(process.pid, signal.SIGKILL)

    def _until(self, began: float) -> float:
        """When the wait for a process started at ``began`` is next overdue."""
        return min(self._deadline, began + self._stall_s if self._explain else math.inf)

    def _exchange(
        self, process: subprocess.Popen[bytes], given: bytes | None, ended: int, label: str,
        began: float,
    ) -> tuple[bytes, bytes]:  # fmt: skip
        """``communicate()``'s work, with the process's end polled beside its pipes: the wait
        wakes the moment git exits (``communicate`` with a timeout polls for the exit, which
        costs most git calls a millisecond)."""
        out, err = _fd(process.stdout), _fd(process.stderr)
        pipes = {out: bytearray(), err: bytearray()}
        stdin, feed, offset = process.stdin, given or b"", 0
        with selectors.PollSelector() as selector:
            for fd in (*pipes, ended):
                selector.register(fd, selectors.EVENT_READ)
            if stdin is not None and feed:
                selector.register(stdin.fileno(), selectors.EVENT_WRITE)
            elif stdin is not None:
                stdin.close()
            while selector.get_map():
                ready = selector.select(max(self._until(began) - time.monotonic(), 0))
                if not ready:
                    self._overdue(process, label)
                for key, _ in ready:
                    if key.fd == ended:
                        selector.unregister(ended)
                    elif key.fd in pipes:
                        data = os.read(key.fd, 1 << 16)
                        pipes[key.fd] += data
                        if not data:
                            selector.unregister(key.fd)
                    else:  # stdin, a pipe's worth at a time: the write never blocks
                        try:
                            offset += os.write(key.fd, feed[offset : offset + select.PIPE_BUF])
                        except BrokenPipeError:  # it ended without reading it all
                            offset = len(feed)
                        if offset >= len(feed):
                            selector.unregister(key.fd)
                            _close_stream(stdin)
        process.wait()  # it has ended: reaped at once
        _close(process)
        return bytes(pipes[out]), bytes(pipes[err])

    def _communicate(
        self, process: subprocess.Popen[bytes], given: bytes | None, label: str, began: float
    ) -> tuple[bytes, bytes]:
        """The same, where a process's end cannot be polled (not Linux): ``communicate``."""
        while True:
            try:
                timeout = max(self._until(began) - time.monotonic(), 0)
                return process.communicate(given, timeout=timeout)
            except subprocess.TimeoutExpired:
                self._overdue(process, label)

    def _overdue(self, process: subprocess.Popen[bytes], label: str) -> None:
        """A wait passed the stall point or the deadline: explain, or end the work."""
        if time.monotonic() >= self._deadline:
            self.stop(GitWaitError(f"{label} took over {self.limit_s:g} s"))
        elif self._explain is not None:
            explain, self._explain = self._explain, None
            if (reason := explain(self.remaining())) is not None:
                self.stop(GitWaitError(reason))
        if self._ended is not None:
            process.kill()  # with its group, by stop(); this for a group that could not be
            process.wait()
            _close(process)
            raise self._ended


def _pidfd(pid: int) -> int | None:
    """A descriptor that polls readable once process ``pid`` has ended (Linux 5.3+), or None."""
    if sys.platform != "linux":
        return None
    try:
        return os.pidfd_open(pid)
    except OSError:
        return None


def _fd(stream: IO[bytes] | None) -> int:
    if stream is None:
        raise ValueError("a git process without its output pipes")
    return stream.fileno()


def _close(process: subprocess.Popen[bytes]) -> None:
    for stream in (process.stdin, process.stdout, process.stderr):
        _close_stream(stream)


def _close_stream(stream: IO[bytes] | None) -> None:
    if stream is not None:
        with contextlib.suppress(OSError):
            stream.close()


def git_command(args: Sequence[str], overrides: Sequence[str] = ()) -> list[str] | None:
    """The argv of a hardened git call, or None when git is not installed."""
    git = installed("git")
    if git is None:
        return None
    options = [part for setting in (*HARDENING, *overrides) for part in ("-c", setting)]
    return [git, "--no-pager", *options, *args]


class HardenedGit(Struct, frozen=True):
    """``environment``: the scrubbed environment children get; ``wrap``: the sandbox."""

    environment: Mapping[str, str]
    wrap: Wrap = field(default=_no_wrap)
    timeout_s: float = TIMEOUT_S  # each call's

    def run(self, cwd: Path, args: Sequence[str]) -> str | None:
        """What ``git args`` prints in ``cwd`` with the repository's drivers blanked, or None
        if it fails."""
        return self._run(cwd, args, self._blanked_drivers(cwd))

    def summary(self, cwd: Path) -> str:
        """The branch and how many files differ from it, or why there is none."""
        branch = self._run(cwd, ["rev-parse", "--abbrev-ref", "HEAD"], [])
        if branch is None:
            return "not a git repository"
        status = self.run(cwd, ["status", "--porcelain", "--ignore-submodules=all"])
        if status is None:  # it failed, or took too long (a FIFO .gitignore makes it wait)
            return f"branch {branch}, changes unknown"
        changed = [line for line in status.splitlines() if line]
        if not changed:
            return f"branch {branch}, clean"
        return f"branch {branch}, {len(changed)} changed file(s)"

    def _blanked_drivers(self, cwd: Path) -> list[str]:
        listed = self._run(cwd, ["config", "--null", "--get-regexp", DRIVER_KEYS], []) or ""
        keys = {entry.split("\n", 1)[0] for entry in listed.split("\0") if entry}
        filters = {key.rsplit(".", 1)[0] for key in keys if key.startswith("filter.")}
        return [f"{key}=" for key in sorted(keys)] + [
            f"{f}.required=false" for f in sorted(filters)
        ]

    def _run(self, cwd: Path, args: Sequence[str], overrides: Sequence[str]) -> str | None:
        command = git_command(args, overrides)
        if command is None:
            return None
        inherited = {k: v for k, v in self.environment.items() if not k.startswith("GIT_")}
        watch = GitWatch(self.timeout_s)
        try:
            process = watch.start(self.wrap(command), cwd=cwd, env={**inherited, **ENVIRONMENT})
            out, _ = watch.wait(process)
        except (OSError, GitWaitError):
            return None
        return out.decode("utf-8", "replace").strip() if process.returncode == 0 else None
