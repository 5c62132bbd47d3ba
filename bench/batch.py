"""`heron batch` figures: 20 trivial scripted tasks with 4 workers against 1 worker.

Each task is a `heron exec --json` process of its own (start-up, one scripted answer, the
session stored) plus its copy, its diff and its trajectory, so the figure is what parallel
workers buy on this machine for work that is mostly process start-up and I/O."""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from pathlib import Path

from acp_server.batch.command import HERON
from bench.figures import Figure

TASKS = 20
WORKERS = 4


def _timed(env: dict[str, str], tasks: Path, out: Path, workers: int) -> float:
    command = [*HERON, "batch", str(tasks), "--out", str(out), "--workers", str(workers)]
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"heron batch failed: {done.stderr[-2000:]}")
    return elapsed


def measure(base: dict[str, str]) -> list[Figure]:
    env = {**base, "HERON_MODEL": "scripted:echo"}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "workspace").mkdir()
        (root / "workspace" / "README.md").write_text("# bench\n")
        tasks = root / "tasks.jsonl"
        tasks.write_text(
            "".join(
                json.dumps({"id": f"t{n}", "prompt": f"hello {n}", "workspace": "workspace"}) + "\n"
                for n in range(TASKS)
            )
        )
        one = _timed(env, tasks, root / "one", 1)
        many = _timed(env, tasks, root / "many", WORKERS)
    how = f"`heron batch` of {TASKS} scripted:echo tasks (one exec process each), wall clock"
    return [
        Figure(f"`heron batch`: {TASKS} trivial tasks, 1 worker", one, "s", None, how),
        Figure(f"`heron batch`: {TASKS} trivial tasks, {WORKERS} workers", many, "s", None, how),
        Figure(
            f"`heron batch`: throughput of {WORKERS} workers over 1",
            one / many,
            "x",
            None,
            "the two runs above; each task's copy, diff and trajectory included",
        ),
    ]
