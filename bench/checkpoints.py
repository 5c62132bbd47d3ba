"""Checkpoint figures on a 20,000-file workspace: the first checkpoint of a workspace, a turn
that changed 5 files (its checkpoint before and its record after), and a turn that only read."""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Awaitable
from pathlib import Path

import anyio

from agent_core.checkpoints.session import Checkpoints, session_checkpoints
from agent_core.checkpoints.settings import CheckpointSettings
from bench.figures import Figure

FOLDERS, FILES = 200, 100  # 20,000 small source files
FIRST_RUNS, TURN_RUNS = 5, 9


def measure(env: dict[str, str]) -> list[Figure]:
    del env  # measured in this process, on real git and real files
    with tempfile.TemporaryDirectory() as scratch:
        workspace = Path(scratch) / "workspace"
        _populate(workspace)
        first = [_first(workspace, Path(scratch) / f"home-{n}") for n in range(FIRST_RUNS)]
        before, after, read_only, refs_added = anyio.run(
            _turns, workspace, Path(scratch) / "home-turns"
        )
    count = f"{FOLDERS * FILES:,} files"
    return [
        Figure(
            "first checkpoint of a workspace",
            statistics.median(first) * 1000,
            "ms",
            300,
            f"{count} (~30 bytes each), a fresh HERON_HOME each time; median of {FIRST_RUNS}",
        ),
        Figure(
            "checkpoint before a turn's first change, 5 files changed since the last",
            statistics.median(before) * 1000,
            "ms",
            50,
            f"{count}; what the turn's first changing tool call waits for; median of {TURN_RUNS}",
        ),
        Figure(
            "record at the end of a turn that changed 5 files",
            statistics.median(after) * 1000,
            "ms",
            None,
            f"{count}; the snapshot the restore plan compares with; median of {TURN_RUNS}",
        ),
        Figure(
            "checkpoint cost of a turn that only read",
            statistics.median(read_only) * 1000,
            "ms",
            None,
            f"{count}; checkpoints taken: {refs_added} (none is taken without a change)",
        ),
    ]


def _populate(workspace: Path) -> None:
    for folder in range(FOLDERS):
        package = workspace / f"pkg{folder:03}"
        package.mkdir(parents=True)
        for file in range(FILES):
            (package / f"m{file:02}.py").write_text(f"def f{file}():\n    return {folder}\n")
    (workspace / ".gitignore").write_text("build/\n")


def _checkpoints(workspace: Path, home: Path) -> Checkpoints:
    return session_checkpoints(CheckpointSettings(), home, workspace, "bench", dict(os.environ))


def _first(workspace: Path, home: Path) -> float:
    checkpoints = _checkpoints(workspace, home)

    async def take() -> float:
        checkpoints.begin_turn("first")
        started = time.perf_counter()
        await checkpoints.before_change()
        return time.perf_counter() - started

    return anyio.run(take)


async def _turns(workspace: Path, home: Path) -> tuple[list[float], list[float], list[float], int]:
    checkpoints = _checkpoints(workspace, home)
    checkpoints.begin_turn("warm")
    await checkpoints.before_change()
    await checkpoints.end_turn()
    before: list[float] = []
    after: list[float] = []
    for run in range(TURN_RUNS):
        for n in range(5):  # changed between turns (by the user, or the last turn's end)
            (workspace / f"pkg{n:03}" / "m00.py").write_text(f"changed {run}\n")
        checkpoints.begin_turn(f"turn {run}")
        before.append(await _timed(checkpoints.before_change()))
        for n in range(5, 10):  # what the turn's tools change
            (workspace / f"pkg{n:03}" / "m00.py").write_text(f"changed {run}\n")
        after.append(await _timed(checkpoints.end_turn()))
    taken = len(await checkpoints.listing())
    read_only: list[float] = []
    for _ in range(TURN_RUNS):
        started = time.perf_counter()
        checkpoints.begin_turn("read")
        await checkpoints.end_turn()
        read_only.append(time.perf_counter() - started)
    return before, after, read_only, len(await checkpoints.listing()) - taken


async def _timed(work: Awaitable[object]) -> float:
    started = time.perf_counter()
    await work
    return time.perf_counter() - started
