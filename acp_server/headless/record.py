"""What one ``heron exec`` run comes to: read from the ``session/update`` items it saw and from
how its prompt ended; the ``--json`` result line and the exit code. Pure, no I/O.

The answer is the last agent message of the turn (the text after its last tool call): what a
script wants on stdout, not the "let me look" that came before. Tool calls are counted by id;
a call counts as refused when ``heron exec`` refused its question or the approval gate says
so on the call (``_meta.heron.refused``: the mode refused it, plan mode's edits say). Usage and
requests are the turn's, from its last ``usage_update`` (``_meta.heron.turn``: Heron counts them
per turn); the cost is the session's cost since the run began (a continued session's opening
``usage_update`` says what it was).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from msgspec import Struct, field

from acp_server.headless.wire import count, heron_of
from acp_server.jsonrpc.values import as_object

DONE, FAILED, USAGE_ERROR, REFUSED, INTERRUPTED = 0, 1, 2, 3, 130
STOPPED = {  # why a turn that ended another way than end_turn failed
    "max_tokens": "the model's reply was cut off at its output limit",
    "max_turn_requests": "the turn reached its limit of model requests",
    "refusal": "the model refused to go on",
    "cancelled": "the turn was cancelled",
}
USAGE_KEYS = ("totalTokens", "inputTokens", "outputTokens", "cachedReadTokens", "cachedWriteTokens")


class Ending(NamedTuple):
    """How the run ended, as the driver saw it."""

    stop_reason: str | None = None  # the prompt's answer; None: there was none
    error: str | None = None  # the run could not go on: why
    usage_error: bool = False  # ``error`` is the caller's (an unknown session)
    interrupted: bool = False  # SIGINT or SIGTERM


class RunRecord(Struct):
    prompting: bool = False  # the prompt is sent: what comes now is the run's
    tool_calls: set[str] = field(default_factory=set[str])
    titles: dict[str, str] = field(default_factory=dict[str, str])
    refused: dict[str, str] = field(default_factory=dict[str, str])  # call id -> the reason
    usage: dict[str, Any] | None = None  # the run's last usage_update
    cost_before: float = 0.0  # the session's cost when the run began
    _answer: list[str] = field(default_factory=list[str])
    _message_id: Any = None  # the message ``_answer`` holds
    _called_since: bool = False  # a tool call came after that message

    def see(self, update: dict[str, Any]) -> None:
        kind = update.get("sessionUpdate")
        if kind == "usage_update":
            self._usage(update)
        elif not self.prompting:
            return  # what a continued session tells before its prompt is not the run's
        elif kind == "agent_message_chunk":
            self._chunk(update)
        elif kind in ("tool_call", "tool_call_update"):
            self._call(update)

    def refuse(self, call_id: str, reason: str) -> None:
        self.refused.setdefault(call_id, reason)

    @property
    def answer(self) -> str:
        return "".join(self._answer).strip()

    def result(self, session_id: str | None, ending: Ending, duration_ms: int) -> dict[str, Any]:
        """The ``--json`` stream's last line."""
        turn = as_object(heron_of(self.usage).get("turn")) or {}
        return {
            "type": "result",
            "sessionId": session_id,
            "stopReason": ending.stop_reason,
            "exitCode": self.exit_code(ending),
            "error": self.error(ending),
            "usage": {k: turn[k] for k in USAGE_KEYS if k in turn} or None,
            "cost": self.cost(),
            "requests": count(turn.get("requests")) or 0,
            "toolCalls": len(self.tool_calls),
            "durationMs": duration_ms,
            "answer": self.answer,
        }

    def exit_code(self, ending: Ending) -> int:
        if ending.interrupted:
            return INTERRUPTED
        if ending.error is not None:
            return USAGE_ERROR if ending.usage_error else FAILED
        if self.refused:
            return REFUSED
        return DONE if ending.stop_reason == "end_turn" else FAILED

    def error(self, ending: Ending) -> str | None:
        if ending.error is not None:
            return ending.error
        if ending.interrupted:
            return "interrupted"
        if self.refused:
            first = next(iter(self.refused.values()))
            many = len(self.refused)
            return f"{many} action{'s' if many > 1 else ''} refused for lack of approval: {first}"
        return None if ending.stop_reason == "end_turn" else STOPPED.get(str(ending.stop_reason))

    def cost(self) -> dict[str, Any] | None:
        cost = as_object((self.usage or {}).get("cost"))
        amount = (cost or {}).get("amount")
        if cost is None or not isinstance(amount, int | float):
            return None
        spent = round(float(amount) - self.cost_before, 10)
        return {"amount": spent, "currency": str(cost.get("currency") or "USD")}

    def _usage(self, update: dict[str, Any]) -> None:
        if self.prompting:
            self.usage = update
            return
        amount = (as_object(update.get("cost")) or {}).get("amount")
        if isinstance(amount, int | float):
            self.cost_before = float(amount)

    def _chunk(self, update: dict[str, Any]) -> None:
        text = (as_object(update.get("content")) or {}).get("text")
        message_id = update.get("messageId")
        if self._called_since or message_id != self._message_id:
            self._answer, self._message_id, self._called_since = [], message_id, False
        if isinstance(text, str):
            self._answer.append(text)

    def _call(self, update: dict[str, Any]) -> None:
        call_id = update.get("toolCallId")
        if not isinstance(call_id, str):
            return
        self.tool_calls.add(call_id)
        self._called_since = True
        if isinstance(title := update.get("title"), str):
            self.titles[call_id] = title
        if isinstance(refused := heron_of(update).get("refused"), str):
            self.refuse(call_id, refused)
