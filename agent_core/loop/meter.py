"""How full the context is: usage after each model call, cost so far, and the warnings; and
what the running turn has asked of the model (``turn``: requests and tokens, from ``new_turn``).

A stored session's meter starts from the usage it last reported (``start``), so the cost goes on
from what the session spent before the process that now runs it, subagents included."""

from __future__ import annotations

from msgspec.structs import replace

from agent_core.events import NoticeRaised, TurnUsage, UsageUpdated
from agent_core.models.base import Model, ResponseCompleted

WARN_AT = (0.95, 0.85)


class ContextMeter:
    def __init__(self, start: UsageUpdated | None = None) -> None:
        self.in_context = start.used_tokens if start else 0  # the last request and its answer
        self.cost: float | None = start.cost_usd if start else None  # USD so far, when known
        self.turn = TurnUsage()  # the running (or last) turn's requests and tokens
        self._warned: set[float] = set()

    def new_turn(self) -> None:
        self.turn = TurnUsage()

    def record(self, completed: ResponseCompleted, model: Model) -> UsageUpdated:
        usage = completed.usage
        prompt = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
        self.in_context = prompt + usage.output_tokens
        cost = model.cost(
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_tokens,
            usage.cache_write_tokens,
        )
        if cost is not None:
            self.cost = (self.cost or 0.0) + cost
        turn = self.turn
        self.turn = replace(
            turn,
            requests=turn.requests + 1,
            input_tokens=turn.input_tokens + usage.input_tokens,
            output_tokens=turn.output_tokens + usage.output_tokens,
            cache_read_tokens=turn.cache_read_tokens + usage.cache_read_tokens,
            cache_write_tokens=turn.cache_write_tokens + usage.cache_write_tokens,
        )
        return UsageUpdated(self.in_context, model.context_window, self.cost, self.turn)

    def spend(self, cost: float, model: Model) -> UsageUpdated:
        """Add what a tool paid for (a subagent's model requests) to the cost so far."""
        self.cost = (self.cost or 0.0) + cost
        return UsageUpdated(self.in_context, model.context_window, self.cost)

    def over(self, model: Model, share: float) -> bool:
        return self.in_context > model.context_window * share

    def warning(self, model: Model) -> NoticeRaised | None:
        """A notice the first time the context passes 85% and then 95% of the window."""
        share = self.in_context / max(model.context_window, 1)
        for level in WARN_AT:
            if share >= level and level not in self._warned:
                self._warned.add(level)
                about = "Older parts of the conversation will be compacted; /compact does it now."
                return NoticeRaised("warning", f"Context {level:.0%} full", about)
        return None
