"""One script run: a private temp dir with the script and its ``heron_tools`` stub, the tool-call
server beside it, and the interpreter in its own process group, inside its limits."""

from __future__ import annotations

import shutil
import signal
import subprocess
import tempfile
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Literal

import anyio
import anyio.abc
from msgspec import Struct

from agent_core.codeexec.interpreter import Interpreter
from agent_core.codeexec.rpc import Dispatch, ToolCallServer
from agent_core.codeexec.settings import CodeExecutionSettings
from agent_core.codeexec.stub import StubTool, render
from agent_core.errors import ToolError
from agent_core.ports.runner import (
    CommandResult,
    CommandRunner,
    exited,
    signal_group,
    terminate_group,
)
from agent_core.safety.sandbox.confinement import Launcher

Status = Literal["success", "error", "timeout", "interrupted"]
DRAIN_S = 1.0  # after the script: how long its output may take to arrive
_Outcome = tuple[Status, "int | None", "_Capped", "_Capped"]  # status, exit code, stdout, stderr


class ScriptHost(Struct, frozen=True):
    """Where scripts run when commands do not run here (a container): its runner, and where
    run folders go (``folders()``: the place on the host and the same seen by the runner,
    once it is up). Scripts run on its ``python3``; output and errors come as one stream."""

    runner: CommandRunner
    folders: Callable[[], Awaitable[tuple[Path, str]]]
    python: str = "python3"


async def host_interpreter(host: ScriptHost) -> Interpreter:
    """The host's Python, or ToolError when it has none."""
    found = await host.runner.run(
        ["/bin/sh", "-c", f"command -v {host.python}"],
        cwd=Path("/"),
        time_limit=30,
        output_limit=4096,
        started=_nothing,
    )
    if found.exit_code != 0 or not found.output.strip():
        raise ToolError(
            f"execute_code runs scripts on the container's {host.python}, and its image has "
            f"none: add Python to the image, or use the terminal tool."
        )
    return Interpreter(Path(found.output.strip().splitlines()[-1]), "the container's")


async def _nothing(_terminal: str | None) -> None:
    return None


async def run_hosted(
    code: str,
    tools: Sequence[StubTool],
    dispatch: Dispatch,
    *,
    host: ScriptHost,
    interpreter: Interpreter,
    workspace: Path | None,
    limits: CodeExecutionSettings,
) -> ScriptRun:
    """Run ``code`` on ``host``: the run folder (script, stub, socket) where the host sees it,
    killed with the turn through the host's runner."""
    parent, inside = await host.folders()
    temp = Path(tempfile.mkdtemp(prefix="exec-", dir=parent))
    seen = f"{inside}/{temp.name}"
    try:
        (temp / "heron_tools.py").write_text(render(tools, f"{seen}/tools.sock"), encoding="utf-8")
        (temp / "script.py").write_text(code, encoding="utf-8")
        server = ToolCallServer(temp / "tools.sock", dispatch, limits.max_tool_calls)
        argv = ["env", f"PYTHONPATH={seen}", "PYTHONUNBUFFERED=1", str(interpreter.python)]
        started = anyio.current_time()
        result: CommandResult | None = None
        async with anyio.create_task_group() as serving:
            await serving.start(server.serve)
            result = await host.runner.run(
                [*argv, f"{seen}/script.py"],
                cwd=workspace or Path(seen),
                time_limit=limits.timeout,
                output_limit=limits.max_output,
                started=_nothing,
            )
            serving.cancel_scope.cancel()
        assert result is not None
        status: Status = "success" if result.exit_code == 0 else "error"
        if result.timed_out:
            status = "timeout"
        elif result.exit_code is None:
            status = "interrupted"
        size = len(result.output.encode())
        if result.truncated:
            size = max(size, limits.max_output + 1)
        duration = anyio.current_time() - started
        return ScriptRun(  # one stream: errors are in the output
            status, result.output, "", result.exit_code, server.calls, duration, size
        )
    finally:
        shutil.rmtree(temp, ignore_errors=True)


class ScriptRun(Struct, frozen=True):
    status: Status
    output: str
    stderr: str
    exit_code: int | None
    tool_calls: int
    duration: float
    output_bytes: int  # all the script printed; more than ``output`` holds when truncated

    def report(self, limits: CodeExecutionSettings, interpreter: Interpreter) -> str:
        """What the model reads: the status line, what the script printed, and why it failed."""
        status = self.status
        if status == "error":
            status = f"error (exit {self.exit_code})"
        elif status == "timeout":
            status = f"timeout (killed after {limits.timeout:g} s)"
        calls = f"{self.tool_calls} tool call{'s' if self.tool_calls != 1 else ''}"
        lines = [
            f"status: {status} · {calls} · {self.duration:.1f} s · {interpreter.origin} Python"
        ]
        if interpreter.note:
            lines.append(f"(the workspace's Python was not used: {interpreter.note})")
        lines.append(self.output.rstrip("\n") or "(no output)")
        if self.output_bytes > limits.max_output:
            printed, shown = self.output_bytes, limits.max_output
            lines.append(f"[output truncated: {printed} bytes printed, the first {shown} shown]")
        if self.status != "success" and self.stderr.strip():
            lines.append(f"stderr:\n{self.stderr.rstrip()}")
        return "\n".join(lines)


async def run_script(
    code: str,
    tools: Sequence[StubTool],
    dispatch: Dispatch,
    *,
    interpreter: Interpreter,
    workspace: Path | None,  # the working directory; None: the run's temp dir (strict mode)
    environment: Mapping[str, str],
    limits: CodeExecutionSettings,
    sandbox: Launcher,
) -> ScriptRun:
    """Run ``code`` inside the session's sandbox, its run folder (script, stub, socket) the one
    writable place besides what the sandbox always lets it write."""
    temp = Path(tempfile.mkdtemp(prefix="heron-exec-"))  # mode 0700: the socket is ours alone
    try:
        socket_path = temp / "tools.sock"
        (temp / "heron_tools.py").write_text(render(tools, str(socket_path)), encoding="utf-8")
        script = temp / "script.py"
        script.write_text(code, encoding="utf-8")
        server = ToolCallServer(socket_path, dispatch, limits.max_tool_calls)
        launch = sandbox.launch([str(interpreter.python), str(script)], writable=True, extra=[temp])
        env = _environment(environment, temp, interpreter)
        started = anyio.current_time()
        outcome: _Outcome | None = None
        try:
            async with anyio.create_task_group() as serving:
                await serving.start(server.serve)
                outcome = await _run(launch.argv, workspace or temp, env, limits)
                serving.cancel_scope.cancel()
        finally:
            sandbox.release(launch)
        assert outcome is not None
        status, exit_code, output, stderr = outcome
        duration = anyio.current_time() - started
        return ScriptRun(
            status, output.text(), stderr.text(), exit_code, server.calls, duration, output.total
        )
    finally:
        shutil.rmtree(temp, ignore_errors=True)


async def _run(
    command: list[str], cwd: Path, env: dict[str, str], limits: CodeExecutionSettings
) -> _Outcome:
    process = await anyio.open_process(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group: a timeout or cancel stops all of it
    )
    output = _Capped(limits.max_output, keep="head")
    stderr = _Capped(limits.max_stderr, keep="tail")
    timed_out = False
    try:
        async with anyio.create_task_group() as pumps:
            assert process.stdout is not None and process.stderr is not None
            pumps.start_soon(output.pump, process.stdout)
            pumps.start_soon(stderr.pump, process.stderr)
            timed_out = not await exited(process, limits.timeout)
            if timed_out:
                await terminate_group(process, limits.grace)
            signal_group(process.pid, signal.SIGKILL)  # what the script left running goes too
            with anyio.move_on_after(DRAIN_S):  # what it printed last; a child that left the
                await output.done.wait()  # group may hold the pipes, so not longer
                await stderr.done.wait()
            pumps.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):  # cancelled: killed at once
            await terminate_group(process, 0)
    code = process.returncode
    if timed_out:
        return "timeout", None, output, stderr
    if code is not None and code < 0:
        return "interrupted", None, output, stderr
    return ("success" if code == 0 else "error"), code, output, stderr


def _environment(base: Mapping[str, str], temp: Path, interpreter: Interpreter) -> dict[str, str]:
    """The scrubbed environment, with the stub importable and the chosen environment active."""
    env = dict(base)
    env["PYTHONPATH"] = ":".join(p for p in (str(temp), base.get("PYTHONPATH", "")) if p)
    env["PYTHONUNBUFFERED"] = "1"
    if (root := interpreter.environment_root) is not None:
        env["VIRTUAL_ENV"] = str(root)
        env["PATH"] = f"{root / 'bin'}:{base.get('PATH', '')}"
    return env


class _Capped:
    """A stream read to its end, keeping at most ``limit`` bytes (its start or its end)."""

    def __init__(self, limit: int, *, keep: Literal["head", "tail"]) -> None:
        self.limit, self.keep, self.total = limit, keep, 0
        self._data = bytearray()
        self.done = anyio.Event()  # the stream ended

    async def pump(self, stream: anyio.abc.ByteReceiveStream) -> None:
        try:
            async for chunk in stream:
                self.total += len(chunk)
                if self.keep == "head":
                    self._data += chunk[: max(0, self.limit - len(self._data))]
                else:
                    self._data += chunk
                    del self._data[: max(0, len(self._data) - self.limit)]
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        self.done.set()

    def text(self) -> str:
        return self._data.decode("utf-8", errors="replace")
