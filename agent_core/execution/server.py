"""The command server inside a container, and its host client.

``podman exec`` costs ~170 ms a call, and killing the exec client leaves the process inside
running. So one POSIX ``sh`` server is started per client with one ``exec -i``, and every command
goes through it: the host writes ``<id>.sh`` into the folder mounted at ``/run/heron`` and sends
a line; the server runs it in a process group of its own, its output into ``<id>.out`` (which the
host tails), and says when it started and how it ended (also in ``<id>.rc``, for background
commands nobody waits on). Protocol, one line each way:

    host -> server   R <id>    run <id>.sh            K <id>   kill its group   P   ping
    server -> host   H <pid>   ready    S <id> <pgid> started    E <id> <rc> ended (128+signal)
                     Q         pong     X <id>        nothing to kill

When the host goes (its end of the pipe closes), the server kills every group it started. Limits:
a command that calls ``setsid`` itself leaves the group and escapes the kill (the container's
removal still ends it); exit code 143 and a death by SIGTERM read the same (the host knows
whether it sent ``K``).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import secrets
import signal
import stat
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import BinaryIO

import anyio
import anyio.abc
from anyio.streams.buffered import BufferedByteReceiveStream
from msgspec import Struct, field

from agent_core.execution.engine import Engine, EngineError
from agent_core.ports.runner import CommandResult

CONTAINER_DIR = "/run/heron"
READY_TIMEOUT_S = 30.0
OUTPUT_POLL_S = 0.02
LINE_LIMIT = 4096

SCRIPT = r"""
D=$1; G=$2; P=$3
ok() { case $1 in "$P"*) case $1 in *[!A-Za-z0-9_.-]*) return 1;; esac;; *) return 1;; esac; }
run() {
  rm -f "$D/$1.out"
  ( ( setsid sh "$D/$1.sh" </dev/null >"$D/$1.out" 2>&1 &
      p=$!; echo $p >"$D/$1.pid"; echo "S $1 $p"
      wait $p; r=$?
      kill -KILL -$p 2>/dev/null
      echo $r >"$D/$1.rc.t"; mv -f "$D/$1.rc.t" "$D/$1.rc"; rm -f "$D/$1.pid"
      echo "E $1 $r" ) 2>/dev/null & )
}
killgrp() {
  kill -TERM -$1 2>/dev/null || kill -TERM $1 2>/dev/null
  ( ( sleep $G; kill -KILL -$1 2>/dev/null ) >/dev/null 2>&1 & )
}
echo "H $$"
while IFS=' ' read -r op id; do
  case $op in
    R) ok "$id" && run "$id" ;;
    K) if ok "$id" && [ -f "$D/$id.pid" ] && read -r p <"$D/$id.pid" && [ -n "$p" ]
       then killgrp "$p"; else echo "X $id"; fi ;;
    P) echo Q ;;
  esac
done
n=
for f in "$D/$P"*.pid; do
  [ -f "$f" ] && read -r p <"$f" && [ -n "$p" ] && kill -TERM -$p 2>/dev/null && n=1
done
[ -n "$n" ] && sleep $G
for f in "$D/$P"*.pid; do
  [ -f "$f" ] && read -r p <"$f" && [ -n "$p" ] && kill -KILL -$p 2>/dev/null
done
"""


def quote(text: str) -> str:
    """``text`` as one POSIX shell word."""
    return "'" + text.replace("'", "'\\''") + "'"


def script(argv: Sequence[str], cwd: Path, environment: Mapping[str, str]) -> str:
    """The file a command runs as: into ``cwd`` (126 when it is not there), the variables,
    then ``argv`` in place of the shell."""
    lines = [f"cd -- {quote(str(cwd))} || exit 126"]
    lines += [f"export {key}={quote(value)}" for key, value in environment.items()]
    lines.append("exec " + " ".join(quote(arg) for arg in argv))
    return "\n".join(lines) + "\n"


def _open_read(path: Path) -> BinaryIO:
    """``path`` for reading, never through a link: the container can write the folder, and a
    link planted there must not make Heron read a host file."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise FileNotFoundError(path)
    return os.fdopen(fd, "rb")


def _write_new(path: Path, text: str) -> None:
    """Create ``path`` afresh (nothing in its place, not even a link) and write ``text``."""
    path.unlink(missing_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    with os.fdopen(os.open(path, flags, 0o600), "w") as file:
        file.write(text)


class Job(Struct):
    """One command the server runs, and what the host has read of its output."""

    id: str
    out: Path
    limit: int
    started: anyio.Event = field(default_factory=anyio.Event)
    done: anyio.Event = field(default_factory=anyio.Event)
    code: int | None = None
    killed: bool = False
    lost: bool = False  # the server went away before the command ended
    tail: bytearray = field(default_factory=bytearray)
    dropped: bool = False
    _offset: int = 0

    def read(self) -> None:
        """Take in what the command wrote since the last read, keeping the last ``limit``
        bytes."""
        with contextlib.suppress(OSError), _open_read(self.out) as file:
            size = file.seek(0, os.SEEK_END)
            if size - self._offset > self.limit:
                self._offset, self.dropped = size - self.limit, True
                self.tail.clear()
            file.seek(self._offset)
            chunk = file.read(size - self._offset)
            self._offset += len(chunk)
            self.tail += chunk
            if len(self.tail) > self.limit:
                del self.tail[: len(self.tail) - self.limit]
                self.dropped = True

    def result(self, *, timed_out: bool = False) -> CommandResult:
        text = self.tail.decode("utf-8", errors="replace")
        if self.lost:
            text += "\n(the container stopped before the command ended)"
        code = self.code
        if code is not None and code > 128 and self.killed:
            name = signal.Signals(code - 128).name if code - 128 in _SIGNALS else "SIGKILL"
            return CommandResult(text, None, name, self.dropped, timed_out)
        return CommandResult(text, code, None, self.dropped, timed_out)


_SIGNALS = {int(s) for s in signal.Signals}


class CommandServer:
    """The host's end of one command server in a running container."""

    def __init__(
        self,
        engine: Engine,
        container: str,
        host_dir: Path,
        *,
        grace: float = 2.0,
        container_dir: str = CONTAINER_DIR,
    ) -> None:
        self._engine = engine
        self._container = container
        self._host_dir = host_dir
        self._container_dir = container_dir
        self._grace = grace
        self._prefix = f"h{os.getpid()}{secrets.token_hex(3)}-"  # this client's ids
        self._ids = itertools.count(1)
        self._jobs: dict[str, Job] = {}
        self._process: anyio.abc.Process | None = None
        self._lines: BufferedByteReceiveStream | None = None
        self._reading = False
        self._tick = anyio.Event()
        self._gone = False

    @property
    def alive(self) -> bool:
        return self._process is not None and not self._gone

    @property
    def client_pid(self) -> int | None:
        """The host process of the ``exec`` that runs the server."""
        return None if self._process is None else self._process.pid

    async def open(self) -> None:
        argv = self._engine.argv(
            "exec", "-i", self._container, "sh", "-c", SCRIPT, "heron",
            self._container_dir, f"{self._grace:g}", self._prefix,
        )  # fmt: skip
        self._process = await anyio.open_process(
            argv,
            env=self._engine.environment(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self._process.stdout is not None
        self._lines = BufferedByteReceiveStream(self._process.stdout)
        try:
            with anyio.move_on_after(READY_TIMEOUT_S):
                line = await self._line()
                if line is not None and line.startswith("H "):
                    return
        except BaseException:  # cancelled while it starts: nothing may be left running
            await self.close()
            raise
        await self.close()
        raise EngineError(f"The command server did not start in container {self._container}.")

    async def start(
        self, argv: Sequence[str], *, cwd: Path, environment: Mapping[str, str], limit: int
    ) -> Job:
        if self._gone or self._process is None:
            raise EngineError(f"Container {self._container} is gone; the command did not run.")
        job_id = f"{self._prefix}{next(self._ids)}"
        job = Job(job_id, self._host_dir / f"{job_id}.out", limit)
        for suffix in (".out", ".rc", ".rc.t", ".pid"):  # nothing planted in their place
            (self._host_dir / f"{job_id}{suffix}").unlink(missing_ok=True)
        _write_new(self._host_dir / f"{job_id}.sh", script(argv, cwd, environment))
        self._jobs[job_id] = job
        await self._send(f"R {job_id}")
        return job

    async def wait(self, job: Job) -> None:
        """Until ``job`` ends (or the server goes), reading the server's lines."""
        await self._until(job.done)

    async def _until(self, event: anyio.Event) -> None:
        while not event.is_set():
            if self._reading:  # another task reads; it sets an event after each line
                await self._tick.wait()
                continue
            self._reading = True
            try:
                line = await self._line()
            finally:
                self._reading = False
                tick, self._tick = self._tick, anyio.Event()
                tick.set()
            if line is None:
                self._lost()
            else:
                self._dispatch(line)

    def poll(self, job: Job) -> None:
        """Whether ``job`` ended, from its ``.rc`` file (nobody may be reading the pipe)."""
        if job.done.is_set():
            return
        with (
            contextlib.suppress(OSError, ValueError),
            _open_read(self._host_dir / f"{job.id}.rc") as file,
        ):
            self._ended(job, int(file.read(16).strip()))

    async def kill(self, job: Job) -> None:
        """Kill ``job``'s group (SIGTERM, then SIGKILL after the grace) and wait for its end."""
        if job.done.is_set():
            return
        job.killed = True
        with anyio.move_on_after(READY_TIMEOUT_S):
            await self._until(job.started)  # before S, the server has no group to kill
        try:
            await self._send(f"K {job.id}")
        except EngineError:  # the server is gone, and killed what it ran as it went
            return
        with anyio.move_on_after(self._grace + 2):
            await self.wait(job)

    def forget(self, job: Job) -> None:
        """Remove an ended job's files."""
        self._jobs.pop(job.id, None)
        for suffix in (".sh", ".out", ".rc", ".rc.t", ".pid"):
            (self._host_dir / f"{job.id}{suffix}").unlink(missing_ok=True)

    async def close(self) -> None:
        """Kill what still runs (the server does, when its input closes) and clean up."""
        process, self._process = self._process, None
        if process is not None:
            with anyio.CancelScope(shield=True):
                if process.stdin is not None:
                    with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                        await process.stdin.aclose()
                with anyio.move_on_after(self._grace + 3):
                    await process.wait()
                if process.returncode is None:
                    process.kill()
                await process.aclose()  # its pipes too: none is left to the garbage collector
        self._lost()
        for path in self._host_dir.glob(f"{self._prefix}*"):
            path.unlink(missing_ok=True)

    async def _send(self, line: str) -> None:
        if self._process is None or self._process.stdin is None:
            raise EngineError(f"Container {self._container} is gone; the command did not run.")
        try:
            await self._process.stdin.send(line.encode() + b"\n")
        except (anyio.BrokenResourceError, anyio.ClosedResourceError) as gone:
            self._lost()
            raise EngineError(f"Container {self._container} is gone.") from gone

    async def _line(self) -> str | None:
        assert self._lines is not None
        try:
            raw = await self._lines.receive_until(b"\n", LINE_LIMIT)
        except (anyio.EndOfStream, anyio.IncompleteRead, anyio.ClosedResourceError):
            return None
        return raw.decode("utf-8", errors="replace")

    def _dispatch(self, line: str) -> None:
        parts = line.split()
        job = self._jobs.get(parts[1]) if len(parts) > 1 else None
        if job is None:
            return
        if parts[0] == "S":
            job.started.set()
        elif parts[0] == "E" and len(parts) > 2 and parts[2].isdigit():
            self._ended(job, int(parts[2]))
        elif parts[0] == "X":  # nothing to kill: it ended, its E is on the way or read
            self.poll(job)

    def _ended(self, job: Job, code: int) -> None:
        job.code = code
        job.read()
        job.started.set()
        job.done.set()

    def _lost(self) -> None:
        self._gone = True
        for job in self._jobs.values():
            if not job.done.is_set():
                self.poll(job)
            if not job.done.is_set():
                job.lost = True
                job.read()
                job.started.set()
                job.done.set()
