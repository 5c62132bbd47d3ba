"""How a batch shows itself: the running tally while it runs, the table at the end.

On a terminal the tally is a bar redrawn in place (and every second, for the clock), with a
line above it for each task that fails or times out; anywhere else (a CI log, a file) it is one
plain line per task as it ends, so that a log reads top to bottom. The table is a pure
function of the summary rows.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from typing import TextIO

from acp_server.batch.results import TaskResult

BAR_WIDTH = 24
ERROR_WIDTH = 60  # of an error, in the table
CLEAR_LINE = "\r\x1b[2K"
HEADINGS = ("id", "status", "exit", "stop", "requests", "tools", "tokens", "cost", "seconds")


class Progress:
    def __init__(self, stream: TextIO, total: int, recorded: Sequence[TaskResult]) -> None:
        """``total``: the tasks of this run's shard; ``recorded``: those already finished."""
        self._stream = stream
        self._live = stream.isatty()
        self._total = total
        self._tally = Counter(r.status for r in recorded)
        self._running = 0
        self._began = time.monotonic()

    def begin(self, to_run: int, workers: int) -> None:
        recorded = sum(self._tally.values())
        already = f", {recorded} already recorded" if recorded else ""
        self._say(
            f"heron batch: {self._total} task(s){already}; {to_run} to run, {workers} at once"
        )
        self.tick()

    def started(self) -> None:
        self._running += 1
        self.tick()

    def finished(self, result: TaskResult) -> None:
        self._running -= 1
        self._tally[result.status] += 1
        if not self._live or result.status != "done":  # a failure stays above the bar
            ended = sum(self._tally.values())
            why = f": {result.error}" if result.error else ""
            self._say(
                f"[{ended}/{self._total}] {result.id} {result.status} in {result.seconds:.1f} s"
                f"{why}"
            )
        self.tick()

    def tick(self) -> None:
        """Redraw the bar (on a terminal)."""
        if self._live:
            self._stream.write(CLEAR_LINE + self.bar())
            self._stream.flush()

    def end(self) -> None:
        self._say(f"heron batch: {self.tally()} in {time.monotonic() - self._began:.1f} s")

    def bar(self) -> str:
        ended = sum(self._tally.values())
        filled = BAR_WIDTH * ended // max(self._total, 1)
        clock = int(time.monotonic() - self._began)
        return (
            f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {ended}/{self._total}  "
            f"{self.tally()}, {self._running} running  {clock // 60}:{clock % 60:02d}"
        )

    def tally(self) -> str:
        t = self._tally
        return f"{t['done']} done, {t['failed']} failed, {t['timed_out']} timed out"

    def _say(self, line: str) -> None:
        self._stream.write((CLEAR_LINE if self._live else "") + line + "\n")
        self._stream.flush()


def table(rows: Sequence[TaskResult]) -> str:
    """The summary as a plain text table, errors after it (one line each, cut)."""
    cells = [HEADINGS, *(_cells(row) for row in rows)]
    widths = [max(len(line[i]) for line in cells) for i in range(len(HEADINGS))]
    numeric = {2, 4, 5, 6, 7, 8}
    lines = [
        "  ".join(
            cell.rjust(widths[i]) if i in numeric else cell.ljust(widths[i])
            for i, cell in enumerate(line)
        ).rstrip()
        for line in cells
    ]
    errors = [f"{row.id}: {_cut(row.error)}" for row in rows if row.error]
    return "\n".join([*lines, *(["", *errors] if errors else [])]) + "\n"


def _cells(row: TaskResult) -> tuple[str, ...]:
    cost = f"{row.cost:.4f} {row.currency or ''}".strip() if row.cost is not None else "-"
    return (
        row.id,
        row.status,
        "-" if row.exit_code is None else str(row.exit_code),
        row.stop_reason or "-",
        str(row.requests),
        str(row.tool_calls),
        "-" if row.tokens is None else f"{row.tokens:,}",
        cost,
        f"{row.seconds:.1f}",
    )


def _cut(text: str | None) -> str:
    line = " ".join((text or "").split())
    return line if len(line) <= ERROR_WIDTH else line[: ERROR_WIDTH - 1] + "…"
