"""TASKS.jsonl read and checked, before anything runs: pure functions, no I/O.

One JSON object per line (blank lines are skipped)::

    {"id": "fix-1", "prompt": "...", "workspace": "projects/a"}
    {"id": "fix-2", "prompt": "...", "repository": "/src/b", "commit": "3f2c1a9",
     "model": "anthropic:claude-sonnet-4-5", "mode": "accept-edits", "timeout": 600}

``workspace`` (a folder, copied) or ``repository`` with ``commit`` (checked out into a fresh
folder); a relative path is taken from the folder of the tasks file. ``model``, ``mode``,
``timeout`` (seconds) and ``allow_dangerous`` are optional: what a task leaves out, the flags
give. An ``id`` names the task's folder in the output, so it is a plain name. An unknown key is
an error rather than ignored, since a misspelt ``timeout`` would otherwise run without one.
Every bad line is named in one error, so that a file is fixed in one pass.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple, cast

from msgspec import Struct
from msgspec.structs import replace

from agent_core.errors import HeronError
from agent_core.modes import MODES

ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")  # a folder name on every system
KEYS = (
    "id",
    "prompt",
    "workspace",
    "repository",
    "commit",
    "model",
    "mode",
    "timeout",
    "allow_dangerous",
)


class TaskFileError(HeronError):
    """TASKS.jsonl (or a flag) cannot be used; the message names each bad line."""


class Task(Struct, frozen=True):
    id: str
    prompt: str
    line: int  # in the tasks file, from 1: errors name it
    workspace: Path | None = None  # a folder to copy
    repository: Path | None = None  # or a repository to check out at ``commit``
    commit: str | None = None
    model: str | None = None
    mode: str | None = None
    timeout: float | None = None  # seconds
    allow_dangerous: bool | None = None  # ``heron exec --allow-dangerous``


class Defaults(NamedTuple):
    """What the flags give a task that does not say."""

    mode: str = "full-access"
    model: str | None = None
    timeout: float = 1800.0
    allow_dangerous: bool = False


class Shard(Struct, frozen=True):
    """``--shard I/N``: every N-th task from the I-th (from 0), in the order of the file."""

    first: int = 0  # I
    every: int = 1  # N

    def pick(self, tasks: Sequence[Task]) -> list[Task]:
        return [task for at, task in enumerate(tasks) if at % self.every == self.first]


def parse_tasks(lines: Iterable[str], base: Path, name: str = "TASKS.jsonl") -> list[Task]:
    """The tasks of a file's lines; relative paths are taken from ``base``. Raises
    ``TaskFileError`` naming every bad line (``name``: the file, as the user gave it)."""
    tasks: list[Task] = []
    problems: list[str] = []
    first_line: dict[str, int] = {}  # by the id in lower case: folders of a file system that
    # ignores case (macOS, Windows) would be one
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            task = _task(text, number, base)
        except ValueError as exc:
            problems.append(f"{name} line {number}: {exc}")
            continue
        if (folder := task.id.lower()) in first_line:
            problems.append(
                f"{name} line {number}: id {task.id!r} is already line {first_line[folder]}'s"
                " (ids name folders: compared without case)"
            )
            continue
        first_line[folder] = number
        tasks.append(task)
    if problems:
        raise TaskFileError("\n".join(problems))
    if not tasks:
        raise TaskFileError(f"{name} holds no task")
    return tasks


def with_defaults(task: Task, defaults: Defaults) -> Task:
    """The task with what it leaves out taken from the flags."""
    return replace(
        task,
        mode=task.mode or defaults.mode,
        model=task.model or defaults.model,
        timeout=task.timeout if task.timeout is not None else defaults.timeout,
        allow_dangerous=(
            task.allow_dangerous if task.allow_dangerous is not None else defaults.allow_dangerous
        ),
    )


def parse_shard(text: str) -> Shard:
    """``I/N`` with 0 <= I < N; raises ``TaskFileError``."""
    index, slash, count = text.partition("/")
    if not (slash and index.isdigit() and count.isdigit()):
        raise TaskFileError(f"--shard {text!r}: write it I/N, e.g. 0/4 (from 0 to N-1)")
    shard = Shard(int(index), int(count))
    if shard.every < 1 or shard.first >= shard.every:
        raise TaskFileError(f"--shard {text!r}: I must be from 0 to N-1, and N at least 1")
    return shard


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"mode {mode!r} is not one of {', '.join(MODES)}")
    return mode


def _task(text: str, number: int, base: Path) -> Task:
    try:
        data: Any = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError("a task is a JSON object")
    given = cast(dict[str, Any], data)
    if unknown := sorted(set(given) - set(KEYS)):
        raise ValueError(f"unknown key {', '.join(map(repr, unknown))} (keys: {', '.join(KEYS)})")
    task_id = _text(given, "id")
    if task_id is None or not ID.fullmatch(task_id):
        raise ValueError(
            "id must be a name of letters, digits, '.', '_' or '-' (at most 128, "
            "starting with a letter or digit): it names the task's folder"
        )
    prompt = _text(given, "prompt")
    if prompt is None:
        raise ValueError(f"task {task_id!r} has no prompt")
    mode = _text(given, "mode")
    return Task(
        id=task_id,
        prompt=prompt,
        line=number,
        **_source(given, base),
        model=_text(given, "model"),
        mode=check_mode(mode) if mode is not None else None,
        timeout=_timeout(given),
        allow_dangerous=_flag(given, "allow_dangerous"),
    )


def _source(given: dict[str, Any], base: Path) -> dict[str, Any]:
    """``workspace``, or ``repository`` and ``commit``."""
    workspace, repository = _text(given, "workspace"), _text(given, "repository")
    commit = _text(given, "commit")
    if (workspace is None) == (repository is None):
        raise ValueError("give either workspace (a folder to copy) or repository and commit")
    if workspace is not None:
        if commit is not None:
            raise ValueError("commit goes with repository, not with workspace")
        return {"workspace": base / workspace}
    if commit is None or commit.startswith("-"):
        raise ValueError("repository needs commit: the commit (or tag, branch) to check out")
    return {"repository": base / cast(str, repository), "commit": commit}


def _text(given: dict[str, Any], key: str) -> str | None:
    value = given.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{key} must be a non-empty string")
    return value


def _flag(given: dict[str, Any], key: str) -> bool | None:
    value = given.get(key)
    if value is not None and not isinstance(value, bool):
        raise ValueError(f"{key} must be true or false")
    return value


def _timeout(given: dict[str, Any]) -> float | None:
    value = given.get("timeout")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ValueError("timeout must be a number of seconds above 0")
    return float(value)
