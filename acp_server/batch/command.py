"""``heron batch TASKS.jsonl --out DIR``: the tasks file checked, the batch run, the table.

Exit codes: 0 every task of the shard done; 1 some failed or timed out (recorded, see the
table); 2 a usage error (a bad line, a missing workspace, a bad flag), before anything runs;
130 interrupted (Ctrl-C: the running tasks are stopped as their time limit would stop them
and left unrecorded, so the same command runs them again; 143 for SIGTERM, 129 for SIGHUP).

Each task is ``heron exec`` run by the interpreter running this command (``HERON``), so a
batch never mixes two installations of Heron. The runs use the user's ``HERON_HOME``: their
sessions are stored as an editor's are (``heron export`` and the editor's session list reach
them) and they use the user's keys and settings; the checkpoints each run keeps of its copy
are removed with the copy.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import TextIO

import anyio

from acp_server.batch.pool import Batch, BatchStopped, run_batch
from acp_server.batch.progress import table
from acp_server.batch.runner import Runner
from acp_server.batch.tasks import (
    Defaults,
    TaskFileError,
    check_mode,
    parse_shard,
    parse_tasks,
    with_defaults,
)
from acp_server.batch.workspace import source_problem
from agent_core.config import heron_home, scrubbed_environment

HERON = (sys.executable, "-c", "from acp_server.cli import main; raise SystemExit(main())")
USAGE_ERROR = 2
INTERRUPTED = 130


def run_batch_command(
    tasks_file: str,
    out: str,
    *,
    workers: int,
    shard: str,
    defaults: Defaults,
    retry_failed: bool,
    terminal: TextIO,
) -> int:
    """``heron batch``; the table goes to ``terminal``, the progress and errors to stderr."""
    try:
        batch = _batch(tasks_file, workers, shard, defaults, retry_failed)
        output = Path(out).resolve()
        output.mkdir(parents=True, exist_ok=True)
    except (TaskFileError, OSError) as exc:
        sys.stderr.write(f"heron batch: {exc}\n")
        return USAGE_ERROR
    scratch = Path(tempfile.mkdtemp(prefix="heron-batch-")).resolve()
    runner = Runner(output, scratch, HERON, heron_home(), scrubbed_environment().kept)
    try:
        rows = anyio.run(run_batch, batch, runner, sys.stderr)
    except (KeyboardInterrupt, BatchStopped) as exc:
        sys.stderr.write(
            "\nheron batch: interrupted; the tasks not recorded run when the same command "
            "is run again\n"
        )
        return 128 + exc.signum if isinstance(exc, BatchStopped) else INTERRUPTED
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    terminal.write(table(rows))
    terminal.flush()
    return 0 if all(row.status == "done" for row in rows) else 1


def _batch(tasks_file: str, workers: int, shard: str, defaults: Defaults, retry: bool) -> Batch:
    if workers < 1:
        raise TaskFileError("--workers must be 1 or more")
    if defaults.timeout <= 0:
        raise TaskFileError("--timeout must be a number of seconds above 0")
    try:
        check_mode(defaults.mode)
    except ValueError as exc:
        raise TaskFileError(f"--mode: {exc}") from None
    path = Path(tasks_file)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskFileError(f"cannot read {tasks_file}: {exc}") from exc
    tasks = [
        with_defaults(t, defaults) for t in parse_tasks(lines, path.parent.resolve(), tasks_file)
    ]
    picked = parse_shard(shard)
    problems = [
        f"{tasks_file} line {task.line}: {problem}"
        for task in picked.pick(tasks)
        if (problem := source_problem(task))
    ]
    if problems:
        raise TaskFileError("\n".join(problems))
    return Batch(tasks, picked, workers, retry)
