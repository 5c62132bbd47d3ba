"""The short live account of a subagent's work that its ``delegate`` call shows in the editor:
the child's latest tool calls with their status, and whether it is writing."""

from __future__ import annotations

from agent_core.events import ToolCallStarted, ToolCallUpdated, ToolStatus

SHOWN_CALLS = 6  # the latest calls listed; earlier ones are counted
MARKS: dict[ToolStatus, str] = {"pending": "·", "in_progress": "…", "completed": "✓", "failed": "✗"}


class Digest:
    def __init__(self, model: str) -> None:
        self._model = model
        self._calls: dict[str, tuple[str, ToolStatus]] = {}  # call id -> (title, status)
        self.requests = 0
        self.writing = False  # the child is writing text (its report, most likely)

    @property
    def calls(self) -> int:
        return len(self._calls)

    def saw(self, event: ToolCallStarted | ToolCallUpdated) -> bool:
        """Take in a child's tool call event; whether the digest changed."""
        before = self._calls.get(event.call_id)
        title, status = before or ("", "pending")
        if isinstance(event, ToolCallStarted):
            title = event.title
        else:
            title, status = event.title or title, event.status or status
        self._calls[event.call_id] = (title, status)
        self.writing = False
        return self._calls[event.call_id] != before

    def text(self) -> str:
        requests = f"{self.requests} request{'s' if self.requests != 1 else ''}"
        lines = [f"Subagent · {self._model} · {requests}"]
        entries = list(self._calls.values())
        if len(entries) > SHOWN_CALLS:
            lines.append(f"  ({len(entries) - SHOWN_CALLS} earlier tool calls)")
        lines += [f"{MARKS[status]} {title}" for title, status in entries[-SHOWN_CALLS:]]
        if self.writing:
            lines.append("✎ writing")
        return "\n".join(lines)
