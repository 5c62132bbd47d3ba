"""Where a ``heron exec`` run is shown: ``JsonOutput`` (``--json``: one JSON object a line on
stdout, nothing else there) or ``TextOutput`` (the answer on stdout; progress on stderr, a live
status line on a terminal, plain lines otherwise).

Both take the same calls: ``start`` once the session is open, ``update`` for each of its
``session/update`` items, ``note`` for a line of progress or a log line (the agent's stderr),
``finish`` with the result. A reader that went away (a closed pipe) ends the output, not the
run: the session still ends cleanly and is stored.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from typing import Any, Protocol, TextIO

from acp_server.headless.wire import heron_of, objects

CLEAR_LINE = "\r\x1b[2K"
STATUS_WIDTH = 100  # characters of the status line kept, so that it never wraps


class Output(Protocol):
    def start(self, start: dict[str, Any]) -> None: ...
    def update(self, update: dict[str, Any]) -> None: ...
    def note(self, text: str) -> None: ...
    def tick(self) -> None: ...
    def finish(self, result: dict[str, Any]) -> None: ...


class Stream:
    """One text stream, written line by line and flushed; given up quietly when its reader
    has gone (``| head``), with the descriptor pointed at /dev/null so that Python's exit
    flush has nothing to complain about either."""

    def __init__(self, file: TextIO) -> None:
        self.file = file
        self.open = True

    def write(self, text: str) -> None:
        if not self.open:
            return
        try:
            self.file.write(text)
            self.file.flush()
        except (BrokenPipeError, ValueError):  # ValueError: the file is closed
            self.open = False
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), self.file.fileno())


class JsonOutput:
    def __init__(self, out: TextIO, err: TextIO) -> None:
        self._out, self._err = Stream(out), Stream(err)

    def start(self, start: dict[str, Any]) -> None:
        self._line(start)

    def update(self, update: dict[str, Any]) -> None:
        self._line(update)

    def note(self, text: str) -> None:
        self._err.write(text.rstrip("\n") + "\n")

    def tick(self) -> None:
        return None

    def finish(self, result: dict[str, Any]) -> None:
        self._line(result)

    def _line(self, item: dict[str, Any]) -> None:
        self._out.write(json.dumps(item, ensure_ascii=False) + "\n")


class TextOutput:
    """``live``: stderr is a terminal, where one status line is rewritten in place (and
    cleared before any other line); else each step is a plain line."""

    def __init__(self, out: TextIO, err: TextIO, *, live: bool) -> None:
        self._out, self._err = Stream(out), Stream(err)
        self._live = live
        self._status = ""  # the status line on screen, if any
        self._doing = ""  # what it says is going on
        self._titles: dict[str, str] = {}
        self._refused: set[str] = set()  # calls shown refused (their failure goes unsaid)
        self._began = time.monotonic()

    def start(self, start: dict[str, Any]) -> None:
        where = f"{start.get('cwd')} · {start.get('model')} · {start.get('mode')} mode"
        self.note(f"heron exec: session {start.get('sessionId')} in {where}")

    def update(self, update: dict[str, Any]) -> None:
        kind = update.get("sessionUpdate")
        if kind == "tool_call":
            self._tool_call(update)
        elif kind == "tool_call_update":
            self._tool_update(update)
        elif kind == "agent_thought_chunk":
            self._show("thinking")
        elif kind == "agent_message_chunk":
            self._show("answering")
        elif kind == "plan":
            self._plan(update)
        elif kind == "notice":
            about = f": {update['description']}" if update.get("description") else ""
            self.note(f"{update.get('severity', 'info')}: {update.get('title')}{about}")

    def note(self, text: str) -> None:
        self._clear()
        self._err.write(text.rstrip("\n") + "\n")

    def tick(self) -> None:
        """A second passed: the status line's clock moves on."""
        if self._doing:
            self._show(self._doing)

    def finish(self, result: dict[str, Any]) -> None:
        self._clear()
        self._doing = ""
        if result["answer"]:
            self._out.write(result["answer"] + "\n")
        self._err.write(summary(result) + "\n")

    def _tool_call(self, update: dict[str, Any]) -> None:
        call_id, title = str(update.get("toolCallId")), str(update.get("title") or "a tool")
        self._titles[call_id] = title
        if self._live:
            self._show(title)
        else:
            self.note(f"→ {title}")

    def _tool_update(self, update: dict[str, Any]) -> None:
        call_id = str(update.get("toolCallId"))
        if isinstance(update.get("title"), str):
            self._titles[call_id] = update["title"]
        title = self._titles.get(call_id, "a tool")
        if refused := heron_of(update).get("refused"):
            self._refused.add(call_id)
            self.note(f"✗ refused: {title}: {refused}")
        elif update.get("status") == "failed" and call_id not in self._refused:
            self.note(f"✗ failed: {title}")
        elif update.get("status") == "completed" and not self._live:
            self.note(f"✓ {title}")

    def _plan(self, update: dict[str, Any]) -> None:
        entries = objects(update.get("entries"))
        done = sum(1 for e in entries if e.get("status") == "completed")
        if self._live:
            self._show(f"plan: {done}/{len(entries)} done")
            return
        marks = {"completed": "[x]", "in_progress": "[~]"}
        lines = [f"  {marks.get(str(e.get('status')), '[ ]')} {e.get('content')}" for e in entries]
        self.note("\n".join(["plan:", *lines]))

    def _show(self, doing: str) -> None:
        if not self._live:
            return
        self._doing = doing
        seconds = time.monotonic() - self._began
        calls = len(self._titles)
        status = f"⏺ {doing} · {calls} tool call{'' if calls == 1 else 's'} · {seconds:.0f} s"
        self._status = status[:STATUS_WIDTH]
        self._err.write(CLEAR_LINE + self._status)

    def _clear(self) -> None:
        if self._status:
            self._err.write(CLEAR_LINE)
            self._status = ""


def summary(result: dict[str, Any]) -> str:
    """The run's last lines on stderr: how the turn ended and what it cost (if it ran), and
    what went wrong (if anything did)."""
    failure = f"heron exec: {result['error']} (exit {result['exitCode']})"
    if result["stopReason"] is None:
        return failure
    parts = [str(result["stopReason"])]
    parts.append(f"{result['requests']} request{'' if result['requests'] == 1 else 's'}")
    parts.append(f"{result['toolCalls']} tool call{'' if result['toolCalls'] == 1 else 's'}")
    if result["cost"] is not None:
        parts.append(f"{result['cost']['amount']:.4f} {result['cost']['currency']}")
    parts.append(f"{result['durationMs'] / 1000:.1f} s")
    line = f"heron exec: {' · '.join(parts)} · session {result['sessionId']}"
    return f"{line}\n{failure}" if result["error"] else line
