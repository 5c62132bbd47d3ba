"""One ``heron exec`` run: ``heron acp`` started as a child, one session opened (new, or a
stored one resumed), its mode and model set, one prompt sent, the answer awaited, the child let
go. Everything the editor would get is the run's to show.

The child runs in a session of its own (``start_new_session``): a terminal's Ctrl-C, or a
batch runner's SIGINT to our process group, reaches this process only, which then cancels the
turn as an editor would (``session/cancel``), waits for the prompt's ``cancelled`` answer (by
then the session is stored) and exits 130. A second signal, or no answer within
``CANCEL_WAIT_S``, stops the wait. The child ends when its input closes, which is also what
happens if this process is killed; its stderr (Heron's warnings) comes through ``Output.note``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

import anyio

from acp_server import __version__
from acp_server.headless.approvals import Policy
from acp_server.headless.client import CAPABILITIES, ExecClient
from acp_server.headless.output import Output
from acp_server.headless.record import Ending, RunRecord
from acp_server.headless.wire import objects
from acp_server.jsonrpc.connection import Connection
from acp_server.jsonrpc.errors import INVALID_PARAMS, RESOURCE_NOT_FOUND, RpcError
from acp_server.jsonrpc.stdio import READ_CHUNK
from acp_server.jsonrpc.transport import StdioTransport
from acp_server.jsonrpc.values import as_object

SETUP_TIMEOUT_S = 60.0  # for each request that opens the session
CANCEL_WAIT_S = 10.0  # from session/cancel to giving up on the prompt's answer
EXIT_WAIT_S = 10.0  # from closing the child's input to no longer waiting for it to exit
KILL_AFTER_S = 1.0  # then, to killing it
TICK_S = 1.0  # how often a live status line's clock moves
SIGNALS = (signal.SIGINT, signal.SIGTERM)
GONE = "heron acp ended before it answered"


class Job(NamedTuple):
    prompt: str
    cwd: Path
    model: str | None = None
    mode: str | None = None  # None: a new session's default (config.toml)
    allow_dangerous: bool = False
    session: str | None = None  # a stored session to continue
    default_mode: str = "ask"  # the configured default: a continued session's, without ``mode``


def execute(job: Job, output: Output) -> int:
    """Run ``job``, show it on ``output``, and say how it ended (the exit code)."""
    run = Run(job, output)
    command = [sys.executable, "-m", "acp_server"]
    if job.model:
        command += ["--model", job.model]
    child = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # a terminal's Ctrl-C is ours to turn into a cancel
    )
    ending = Ending(interrupted=True)
    try:
        ending = anyio.run(run.main, child)
    except KeyboardInterrupt:  # before the signal handlers were in place
        pass
    finally:
        _let_go(child)
    return run.finish(ending)


class Run:
    def __init__(self, job: Job, output: Output) -> None:
        self.job, self.output = job, output
        self.record = RunRecord()
        self.client = ExecClient(self.record, output, Policy(job.mode or job.default_mode))
        self.began = time.monotonic()
        self.interrupted = False
        self.prompting = False  # the prompt is sent: a signal now cancels the turn
        self.answered = False  # the prompt's answer is in: a signal now stops the wait for exit
        self.waiting: anyio.CancelScope | None = None  # what a signal cuts short
        self.connection: Connection | None = None
        self.last_words = ""  # the child's last line on stderr

    async def main(self, child: subprocess.Popen[bytes]) -> Ending:
        self.waiting = anyio.CancelScope()
        ending = Ending(error="the run did not begin")
        async with anyio.create_task_group() as group:
            group.start_soon(self._watch_signals)
            group.start_soon(self._tick)
            try:
                ending = await self._drive(child)
            finally:
                group.cancel_scope.cancel()
        return ending

    def finish(self, ending: Ending) -> int:
        """The result shown, and the exit code."""
        if self.interrupted:
            ending = ending._replace(interrupted=True)
        if ending.error == GONE and self.last_words:
            ending = ending._replace(error=f"{GONE}: {self.last_words}")
        duration_ms = int((time.monotonic() - self.began) * 1000)
        result = self.record.result(self.client.session_id, ending, duration_ms)
        self.output.finish(result)
        return int(result["exitCode"])

    async def _drive(self, child: subprocess.Popen[bytes]) -> Ending:
        """The session, over the child's stdio; returns once the child closed its output."""
        assert child.stdin is not None and child.stdout is not None and child.stderr is not None
        transport = StdioTransport(os.dup(child.stdout.fileno()), os.dup(child.stdin.fileno()))
        errors = os.dup(child.stderr.fileno())
        for pipe in (child.stdin, child.stdout, child.stderr):
            pipe.close()
        self.connection = connection = Connection(transport)
        ending = Ending(error=GONE)
        async with anyio.create_task_group() as talking:
            talking.start_soon(connection.serve, self.client)
            talking.start_soon(self._forward_stderr, errors)
            try:
                ending = await self._session(connection)
            finally:
                transport.close()  # end of input: the child exits (its session is stored)
                self.answered = True
                self.waiting = talking.cancel_scope
                talking.cancel_scope.deadline = anyio.current_time() + EXIT_WAIT_S
        return ending

    async def _session(self, connection: Connection) -> Ending:
        assert self.waiting is not None
        try:
            with self.waiting:
                start = await self._open(connection)
                self.output.start(start)
                self.client.streaming = True
                return await self._prompt(connection)
        except RpcError as exc:
            if connection.closed:  # the child is gone: its stderr says why
                return Ending(error=GONE)
            unknown = exc.code in (RESOURCE_NOT_FOUND, INVALID_PARAMS) and self.job.session
            return Ending(error=exc.message, usage_error=bool(unknown))
        return Ending(interrupted=True)  # a signal, or no answer to the cancel in time

    async def _open(self, connection: Connection) -> dict[str, Any]:
        """Initialize, open the session, set its mode and model: the start line."""
        job = self.job
        hello = {
            "protocolVersion": 1,
            "clientInfo": {"name": "heron-exec", "version": __version__},
            "clientCapabilities": CAPABILITIES,
        }
        await connection.request("initialize", hello, timeout=SETUP_TIMEOUT_S)
        where: dict[str, Any] = {"cwd": str(job.cwd), "mcpServers": []}
        if job.session:
            self.client.session_id = job.session
            opened = await connection.request(
                "session/resume", {"sessionId": job.session, **where}, timeout=SETUP_TIMEOUT_S
            )
        else:
            opened = await connection.request("session/new", where, timeout=SETUP_TIMEOUT_S)
            self.client.session_id = str(opened["sessionId"])
        session_id = self.client.session_id
        mode, model = _current(opened, "mode"), _current(opened, "model")
        wanted = job.mode or (job.default_mode if job.session else mode)
        if wanted and wanted != mode:
            params = {"sessionId": session_id, "modeId": wanted}
            await connection.request("session/set_mode", params, timeout=SETUP_TIMEOUT_S)
            mode = wanted
        if job.model and job.session and job.model != model:
            params = {"sessionId": session_id, "configId": "model", "value": job.model}
            await connection.request("session/set_config_option", params, timeout=SETUP_TIMEOUT_S)
            model = job.model
        self.client.policy = Policy(str(mode), job.allow_dangerous)
        cwd = str(job.cwd)
        return {"type": "start", "sessionId": session_id, "cwd": cwd, "model": model, "mode": mode}

    async def _prompt(self, connection: Connection) -> Ending:
        if self.interrupted:  # a signal came as the session opened
            return Ending(interrupted=True)
        params = {
            "sessionId": self.client.session_id,
            "prompt": [{"type": "text", "text": self.job.prompt}],
        }
        self.record.prompting = self.prompting = True
        response = as_object(await connection.request("session/prompt", params)) or {}
        stop = response.get("stopReason")
        return Ending(str(stop) if isinstance(stop, str) else None)

    async def _watch_signals(self) -> None:
        """SIGINT or SIGTERM: during the turn, the first cancels it and gives its answer
        ``CANCEL_WAIT_S``; any other stops what is awaited now (opening, the answer, the
        child's exit)."""
        with anyio.open_signal_receiver(*SIGNALS) as signals:
            async for _ in signals:
                if self.prompting and not self.interrupted and not self.answered:
                    self.interrupted = True
                    self.output.note("heron exec: interrupted; cancelling the turn")
                    assert self.connection is not None
                    cancel = {"sessionId": self.client.session_id}
                    await self.connection.notify("session/cancel", cancel)
                    if self.waiting is not None:
                        self.waiting.deadline = anyio.current_time() + CANCEL_WAIT_S
                    continue
                self.interrupted = self.interrupted or not self.answered
                if self.waiting is not None:
                    self.waiting.cancel()

    async def _tick(self) -> None:
        while True:
            await anyio.sleep(TICK_S)
            self.output.tick()

    async def _forward_stderr(self, fd: int) -> None:
        """The child's stderr, line by line, as notes."""
        pending = b""
        try:
            while True:
                await anyio.wait_readable(fd)
                chunk = os.read(fd, READ_CHUNK)
                if not chunk:
                    break
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    self._said(line)
        finally:
            if pending:
                self._said(pending)
            os.close(fd)

    def _said(self, line: bytes) -> None:
        text = line.decode("utf-8", "replace").rstrip()
        if text:
            self.last_words = text
            self.output.note(text)


def _current(opened: Any, option: str) -> str | None:
    """The current value of a session's config option (``mode``, ``model``)."""
    for entry in objects((as_object(opened) or {}).get("configOptions")):
        if entry.get("id") == option and isinstance(entry.get("currentValue"), str):
            return str(entry["currentValue"])
    return None


def _let_go(child: subprocess.Popen[bytes]) -> None:
    """The child, gone: it exits once its input is closed (``Run._drive`` waited for that);
    killed if it has not by now. Its pipes are closed here if the run never took them."""
    for pipe in (child.stdin, child.stdout, child.stderr):
        if pipe is not None:
            pipe.close()
    try:
        child.wait(KILL_AFTER_S)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
