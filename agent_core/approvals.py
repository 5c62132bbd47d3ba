"""The ``Approver`` port: asking the user whether a tool call may run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from agent_core.events import ToolKind

Decision = Literal["allow_once", "allow_always", "reject_once", "reject_always", "cancelled"]


@dataclass(frozen=True)
class ApprovalRequest:
    call_id: str
    title: str
    tool_kind: ToolKind


@dataclass(frozen=True)
class ApprovalOutcome:
    decision: Decision
    reason: str | None = None  # a rejection's reason goes back to the model

    @property
    def allowed(self) -> bool:
        return self.decision in ("allow_once", "allow_always")


class Approver(Protocol):
    async def request(self, request: ApprovalRequest) -> ApprovalOutcome: ...
