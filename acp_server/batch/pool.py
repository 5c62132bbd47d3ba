"""The batch: the shard's tasks not yet recorded, ``workers`` at a time, and the summary.

Resuming: a task is finished when its ``result.json`` is in the output, whatever its status,
so running the same command again runs only what was never recorded (a batch stopped, a
machine lost). A failed or timed-out task is a result too, kept and skipped: a run is a
measurement, and running a failure again by default would spend a model's time to change the
data set behind the user's back (and a task that fails the same way every time would never
let a rerun be a no-op). ``--retry-failed`` runs them again, after an outage say.

``summary.jsonl`` is written again, whole, each time a task ends: one line per recorded task
of the whole file, in the file's order, from the results read when the batch began and those
of its runs (one read of every ``result.json`` per batch, not per task: a batch of 10,000
tasks would otherwise read 100 million files). At the end the results are read again, so that
shards sharing an output folder each leave a summary of all of it.
"""

from __future__ import annotations

import signal
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import anyio
from msgspec import Struct

from acp_server.batch.progress import Progress
from acp_server.batch.results import TaskResult, from_json
from acp_server.batch.runner import RESULT, Runner
from acp_server.batch.tasks import Shard, Task
from agent_core.errors import HeronError
from agent_core.files.atomic import write_atomically

TICK_S = 1.0  # how often the bar's clock moves
SUMMARY = "summary.jsonl"
# Ctrl-C, a CI job cancelled, a terminal closed: the running tasks are stopped as their time
# limit would stop them (their runs are in process groups of their own, which no terminal or
# parent signals) and left unrecorded.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class BatchStopped(HeronError):
    """A signal stopped the batch; the tasks it was running were stopped, not recorded."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum


class Batch(Struct, frozen=True):
    tasks: Sequence[Task]  # every task of the file, the flags' defaults applied
    shard: Shard
    workers: int
    retry_failed: bool = False


async def run_batch(batch: Batch, runner: Runner, stream: TextIO) -> list[TaskResult]:
    """Run what is left of the shard, its progress on ``stream``; every recorded row of the
    shard once it is done, in file order."""
    mine = batch.shard.pick(batch.tasks)
    recorded = await anyio.to_thread.run_sync(read_results, runner.out, batch.tasks)
    to_run = [t for t in mine if _to_run(recorded[t.id], batch.retry_failed)]
    again = {task.id for task in to_run}
    kept = [row for task in mine if (row := recorded[task.id]) and task.id not in again]
    progress = Progress(stream, len(mine), kept)
    progress.begin(len(to_run), batch.workers)
    limiter = anyio.CapacityLimiter(batch.workers)

    async def one(task: Task) -> None:
        async with limiter:
            progress.started()
            result = await runner.run(task)
            recorded[task.id] = result
            progress.finished(result)
            rows = [row for row in recorded.values() if row is not None]
            await anyio.to_thread.run_sync(write_summary, runner.out, rows)

    caught: list[int] = []
    async with anyio.create_task_group() as group:
        group.start_soon(_tick, progress)
        group.start_soon(_stop_on_signal, group.cancel_scope, caught)
        async with anyio.create_task_group() as running:
            for task in to_run:
                running.start_soon(one, task)
        group.cancel_scope.cancel()  # the clock stops with the last task
    if caught:
        raise BatchStopped(caught[0])
    on_disk = await anyio.to_thread.run_sync(read_results, runner.out, batch.tasks)
    rows = [row for row in on_disk.values() if row is not None]  # with other shards' too
    await anyio.to_thread.run_sync(write_summary, runner.out, rows)
    progress.end()
    return [row for task in mine if (row := recorded[task.id]) is not None]


def recorded_result(out: Path, task_id: str) -> TaskResult | None:
    """The task's recorded result, or None if it has none (or a damaged one)."""
    try:
        return from_json((out / task_id / RESULT).read_text(encoding="utf-8"))
    except OSError:
        return None


def read_results(out: Path, tasks: Sequence[Task]) -> dict[str, TaskResult | None]:
    """Each task's recorded result, in the file's order."""
    return {task.id: recorded_result(out, task.id) for task in tasks}


def write_summary(out: Path, rows: Sequence[TaskResult]) -> None:
    write_atomically(out / SUMMARY, "".join(row.to_json() + "\n" for row in rows).encode())


def _to_run(recorded: TaskResult | None, retry_failed: bool) -> bool:
    return recorded is None or (retry_failed and recorded.status != "done")


async def _stop_on_signal(scope: anyio.CancelScope, caught: list[int]) -> None:
    with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
        async for signum in signals:
            caught.append(signum)
            scope.cancel()
            return


async def _tick(progress: Progress) -> None:
    while True:
        await anyio.sleep(TICK_S)
        progress.tick()
