"""One task: its copy made, ``heron exec --json`` run in it, what the run left written down.

The run is a process of its own, in a process group of its own, so that its time limit (and a
batch stopped with Ctrl-C) reaches everything it started: at the limit the group gets SIGINT,
which ``heron exec`` answers by cancelling the turn cleanly, storing the session and exiting
130; a group still there ``GRACE_S`` later is killed. Its stdout goes straight to
``events.jsonl``, byte for byte as it came, and its stderr to ``stderr.log``.

The task's folder in the output holds ``events.jsonl``, ``stderr.log``, ``trajectory.json``
(ShareGPT), ``diff.patch`` and, written last and whole, ``result.json``: a task is finished
when its result is there. A copy, its shadow repository and the checkpoints Heron kept of it
live in the batch's scratch folder and are removed when the task ends, whatever happened.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

import anyio
import anyio.abc
from msgspec import Struct
from msgspec.structs import replace

from acp_server.batch.results import Ending, TaskResult, failed, to_result
from acp_server.batch.tasks import Task
from acp_server.batch.trajectory import TrajectoryMissing, sharegpt_text
from acp_server.batch.workspace import Changes, WorkspaceError, forget_checkpoints, make_copy
from agent_core.files.atomic import write_atomically

GRACE_S = 5.0  # from SIGINT to SIGKILL
STDERR_TAIL = 4_000  # bytes of stderr read back for a run that left no result
RESULT = "result.json"
OUTPUTS = ("events.jsonl", "stderr.log", "trajectory.json", "diff.patch", RESULT)


class Runner(Struct, frozen=True):
    out: Path  # the batch's output folder
    scratch: Path  # where copies live while their task runs; resolved (sessions record it)
    heron: tuple[str, ...]  # the command that starts ``heron``
    home: Path  # HERON_HOME: where the runs store their sessions and checkpoints
    environment: Mapping[str, str]  # scrubbed, for git
    grace_s: float = GRACE_S

    async def run(self, task: Task) -> TaskResult:
        """Run ``task`` and record it; never raises for what the task did."""
        folder = self.out / task.id
        await anyio.to_thread.run_sync(_fresh_folder, folder)
        place = self.scratch / task.id
        copy = place / "workspace"
        began = time.monotonic()
        try:
            result = await self._run_in(task, place, copy, folder)
        except (WorkspaceError, OSError) as exc:  # no copy, or no heron to start
            result = failed(task.id, str(exc), time.monotonic() - began)
        except Exception as exc:  # noqa: BLE001 - a task boundary: one bug ends no batch
            said = f"heron batch failed on this task: {type(exc).__name__}: {exc}"
            result = failed(task.id, said, time.monotonic() - began)
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(self._clean, place, copy)
        await anyio.to_thread.run_sync(
            write_atomically, folder / RESULT, (result.to_json() + "\n").encode()
        )
        return result

    async def _run_in(self, task: Task, place: Path, copy: Path, folder: Path) -> TaskResult:
        await anyio.to_thread.run_sync(make_copy, task, copy, self.environment, self.out)
        changes = Changes(place / "shadow", copy, self.environment)
        await anyio.to_thread.run_sync(changes.before)
        ending = await self._exec(task, copy, folder)
        events = await anyio.to_thread.run_sync(_lines, folder / "events.jsonl")
        result = to_result(task.id, events, ending)
        problems: list[str] = []
        try:
            patch = await anyio.to_thread.run_sync(changes.patch)
            await anyio.to_thread.run_sync(write_atomically, folder / "diff.patch", patch)
        except WorkspaceError as exc:
            problems.append(f"no diff: {exc}")
        if result.session_id is None:
            problems.append("no trajectory: heron exec named no session")
        else:
            try:
                text = await sharegpt_text(self.home / "sessions.db", result.session_id)
                await anyio.to_thread.run_sync(
                    write_atomically, folder / "trajectory.json", text.encode()
                )
            except TrajectoryMissing as exc:
                problems.append(f"no trajectory: {exc}")
        if problems:
            result = replace(result, error="; ".join(filter(None, [result.error, *problems])))
        return result

    async def _exec(self, task: Task, copy: Path, folder: Path) -> Ending:
        command = [*self.heron, "exec", "--json", "--cwd", str(copy), "--mode", str(task.mode)]
        if task.model:
            command += ["--model", task.model]
        if task.allow_dangerous:
            command.append("--allow-dangerous")
        command += ["--", task.prompt]  # a prompt may start with "-"
        began = time.monotonic()
        with (
            (folder / "events.jsonl").open("wb") as events,
            (folder / "stderr.log").open("wb") as errors,
        ):
            process = await anyio.open_process(
                command,
                stdin=subprocess.DEVNULL,
                stdout=events,
                stderr=errors,
                start_new_session=True,
            )
            try:
                with anyio.move_on_after(task.timeout) as limit:
                    await process.wait()
            finally:  # the limit, or the batch stopped: the run is stopped as Ctrl-C would
                with anyio.CancelScope(shield=True):
                    await self._stop(process)
        return Ending(
            process.returncode if process.returncode is not None else -signal.SIGKILL,
            limit.cancelled_caught,
            time.monotonic() - began,
            _tail(folder / "stderr.log"),
            task.timeout,
        )

    async def _stop(self, process: anyio.abc.Process) -> None:
        """SIGINT to the run's group, SIGKILL ``grace_s`` later if it is still there; what the
        run left in its group after it ended is killed either way."""
        if process.returncode is None:
            _signal_group(process.pid, signal.SIGINT)
            with anyio.move_on_after(self.grace_s):
                await process.wait()
        _signal_group(process.pid, signal.SIGKILL)
        await process.wait()

    def _clean(self, place: Path, copy: Path) -> None:
        forget_checkpoints(self.home, copy, self.environment)
        shutil.rmtree(place, ignore_errors=True)


def finished(folder: Path) -> bool:
    return (folder / RESULT).is_file()


def _fresh_folder(folder: Path) -> None:
    """The task's output folder, emptied of what an unfinished run left."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in OUTPUTS:
        (folder / name).unlink(missing_ok=True)


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8", errors="replace").splitlines()


def _signal_group(group: int, sent: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, sent)


def _tail(path: Path) -> str:
    try:
        with path.open("rb") as file:
            file.seek(max(path.stat().st_size - STDERR_TAIL, 0))
            return file.read().decode("utf-8", "replace")
    except OSError:
        return ""
