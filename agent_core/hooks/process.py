"""One hook's process: its stdin written, stdout and stderr read apart (a refusal's reason is
its stderr), capped, under a deadline. It runs in its own process group, killed as a whole
when it is done, times out or is cancelled (``ports.runner.terminate_group``)."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import anyio
import anyio.abc
from anyio.abc import ByteReceiveStream
from msgspec import Struct

from agent_core.ports.runner import terminate_group

OUTPUT_LIMIT = 20_000  # characters of each stream kept: the start, which says what happened
KILL_GRACE_S = 1.0


class HookRun(Struct, frozen=True):
    exit_code: int | None  # None: killed (a timeout, a signal)
    stdout: str
    stderr: str
    timed_out: bool = False
    truncated: bool = False


class _Kept:
    """The start of one stream; the rest is read and dropped, so the hook never blocks."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.dropped = False

    async def pump(self, stream: ByteReceiveStream | None) -> None:
        if stream is None:
            return
        try:
            async for chunk in stream:
                room = OUTPUT_LIMIT - len(self.data)
                self.data += chunk[: max(room, 0)]
                self.dropped = self.dropped or len(chunk) > room
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


async def run_hook_process(
    argv: Sequence[str],
    stdin: bytes,
    *,
    cwd: Path,
    environment: Mapping[str, str],
    timeout: float,  # noqa: ASYNC109 - the hook's own limit, with the group killed after it
) -> HookRun:
    """Run ``argv`` (the sandbox's command line) to its end or its ``timeout``."""
    process = await anyio.open_process(
        list(argv),
        cwd=cwd,
        env=dict(environment),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, killed as a whole
    )
    out, err = _Kept(), _Kept()
    try:
        with anyio.move_on_after(timeout) as waited:
            async with anyio.create_task_group() as group:
                group.start_soon(_feed, process, stdin)
                group.start_soon(out.pump, process.stdout)
                group.start_soon(err.pump, process.stderr)
            await process.wait()
    finally:
        with anyio.CancelScope(shield=True):
            await terminate_group(process, KILL_GRACE_S)
            await process.aclose()  # its pipes, and the transport behind them
    code = process.returncode
    timed_out = waited.cancelled_caught
    return HookRun(
        None if timed_out or code is None or code < 0 else code,
        out.text(),
        err.text(),
        timed_out,
        out.dropped or err.dropped,
    )


async def _feed(process: anyio.abc.Process, data: bytes) -> None:
    """The payload on stdin, then end of file; a hook that reads none of it is fine."""
    if process.stdin is None:
        return
    try:
        await process.stdin.send(data)
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        pass
    finally:
        await process.stdin.aclose()
