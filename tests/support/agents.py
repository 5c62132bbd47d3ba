"""An ``Agent`` built in-process, with stand-ins for the ports a test does not exercise."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_core.approval.permissions import ApprovalOutcome, ApprovalRequest, Permissions
from agent_core.loop.agent import Agent
from agent_core.models.scripted import ScriptedModel
from agent_core.modes import Mode
from agent_core.ports.runner import LocalRunner
from agent_core.tools.base import ToolContext
from tests.support.sandbox import no_sandbox


class NoWorkspace:
    """A workspace whose files no test reads or writes: only its root (``/nonexistent``)."""

    def __init__(self, root: Path = Path("/nonexistent")) -> None:
        self.roots = (root,)

    async def read_text(self, path: Path) -> str:
        raise AssertionError("not used")

    async def write_text(self, path: Path, content: str) -> None:
        raise AssertionError("not used")

    async def exists(self, path: Path) -> bool:
        return False


class AllowAll:
    async def request(self, request: ApprovalRequest) -> ApprovalOutcome:
        return ApprovalOutcome("allow_once")


class Recording:
    """The user as an approver: answers every request with ``decision``, keeps what it asked."""

    def __init__(self, decision: str) -> None:
        self.decision = decision
        self.asked: list[ApprovalRequest] = []

    async def request(self, request: ApprovalRequest) -> ApprovalOutcome:
        self.asked.append(request)
        return ApprovalOutcome(self.decision)  # type: ignore[arg-type]


class NoRules:
    def allowed(self, category: str = "commands") -> frozenset[str]:
        return frozenset()

    def rejected(self, category: str = "commands") -> frozenset[str]:
        return frozenset()

    def remember(self, prefix: str, *, allow: bool, category: str = "commands") -> None:
        return None


async def ignore(event: object) -> None:
    return None


async def no_mode_change(mode: Mode) -> None:
    del mode


def make_agent(model: ScriptedModel, tools: dict[str, Any] | None = None, **kwargs: Any) -> Agent:
    permissions = Permissions("ask", AllowAll(), NoRules(), ignore)
    context = ToolContext("", NoWorkspace(), permissions, ignore, LocalRunner({}), no_sandbox())
    return Agent(
        model=model, tools=tools or {}, system_prompt="sys", tool_context=context, **kwargs
    )
