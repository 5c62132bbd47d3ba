"""What one task's run comes to: a row of ``summary.jsonl``, read from the ``heron exec --json``
stream and how the process ended. Pure functions, no I/O.

The stream's first line is ``{"type": "start", "sessionId", ...}`` and its last ``{"type":
"result", "stopReason", "exitCode", "error", "usage", "cost", "requests", "toolCalls", ...}``;
every line between is a ``session/update`` item. A run that crashed or was killed may have no
result line (or half a last line): the row says what is known and why the rest is not.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Literal, cast

from msgspec import Struct
from msgspec.structs import asdict

Status = Literal["done", "failed", "timed_out"]
STATUSES: tuple[Status, ...] = ("done", "failed", "timed_out")
EXIT_MEANINGS = {
    1: "failed",
    2: "usage error",
    3: "stopped for lack of approval",
    130: "interrupted",
}


class TaskResult(Struct, frozen=True):
    id: str
    status: Status
    exit_code: int | None  # None: killed by a signal
    stop_reason: str | None
    requests: int
    tool_calls: int
    tokens: int | None  # input and output, as the provider counted them
    cost: float | None
    currency: str | None
    seconds: float
    error: str | None
    session_id: str | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)


class Ending(Struct, frozen=True):
    """How the process ended, as the runner saw it."""

    returncode: int  # negative: the signal that killed it
    timed_out: bool
    seconds: float
    stderr_tail: str = ""  # its last words, for a run that left no result
    limit_s: float | None = None  # its time limit


def stream_lines(lines: Iterable[str]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The start and result objects of a ``heron exec --json`` stream (None when missing)."""
    start: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    for line in lines:
        try:
            item: Any = json.loads(line)
        except ValueError:
            continue  # a last line cut short by a kill
        if isinstance(item, dict):
            found = cast(dict[str, Any], item)
            if found.get("type") == "start":
                start = found
            elif found.get("type") == "result":
                result = found
    return start, result


def to_result(task_id: str, lines: Iterable[str], ending: Ending) -> TaskResult:
    """The summary row of one run."""
    start, result = stream_lines(lines)
    said: Mapping[str, Any] = result or {}
    exit_code = ending.returncode if ending.returncode >= 0 else None
    session = said.get("sessionId") or (start or {}).get("sessionId")
    cost = said.get("cost") if isinstance(said.get("cost"), dict) else None
    return TaskResult(
        id=task_id,
        status=_status(ending),
        exit_code=exit_code,
        stop_reason=said.get("stopReason"),
        requests=int(said.get("requests") or 0),
        tool_calls=int(said.get("toolCalls") or 0),
        tokens=tokens(said.get("usage")),
        cost=float(cost["amount"]) if cost and cost.get("amount") is not None else None,
        currency=str(cost["currency"]) if cost and cost.get("currency") else None,
        seconds=round(ending.seconds, 3),
        error=_error(said, ending, result is not None),
        session_id=str(session) if session else None,
    )


def failed(task_id: str, error: str, seconds: float) -> TaskResult:
    """The row of a task that could not start (its workspace could not be made)."""
    return TaskResult(task_id, "failed", None, None, 0, 0, None, None, None, seconds, error)


def from_json(text: str) -> TaskResult | None:
    """A row as ``to_json`` wrote it, or None for anything else (a damaged file)."""
    try:
        data: Any = json.loads(text)
        row = TaskResult(**cast(dict[str, Any], data))
    except (ValueError, TypeError):
        return None
    return row if row.status in STATUSES else None


def tokens(usage: object) -> int | None:
    """The tokens a usage object counts: its total, else input plus output (any spelling)."""
    if not isinstance(usage, dict):
        return None
    counts = cast(dict[str, Any], usage)
    for total in ("totalTokens", "total_tokens"):
        if isinstance(counts.get(total), int):
            return int(counts[total])
    found = [
        counts[key]
        for key in ("inputTokens", "outputTokens", "input_tokens", "output_tokens")
        if isinstance(counts.get(key), int)
    ]
    return sum(found) if found else None


def _status(ending: Ending) -> Status:
    if ending.timed_out:
        return "timed_out"
    return "done" if ending.returncode == 0 else "failed"


def _error(said: Mapping[str, Any], ending: Ending, has_result: bool) -> str | None:
    if ending.timed_out:
        limit = f" of {ending.limit_s:g} s" if ending.limit_s is not None else ""
        return f"stopped at its time limit{limit}" + ("" if has_result else " (killed: no result)")
    if ending.returncode == 0:
        return None
    if said.get("error"):
        return str(said["error"])
    if ending.returncode < 0:
        return f"killed by signal {-ending.returncode}" + _last_words(ending)
    meaning = EXIT_MEANINGS.get(ending.returncode, "failed")
    return f"heron exec exited {ending.returncode} ({meaning})" + _last_words(ending)


def _last_words(ending: Ending) -> str:
    tail = ending.stderr_tail.strip().splitlines()
    return f": {tail[-1]}" if tail else ""
