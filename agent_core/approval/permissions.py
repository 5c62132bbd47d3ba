"""Asking the user: ``Permissions`` applies the policy (``safety.policy``) for one session.

It asks through the ``Approver`` port when the policy says so, with the reason on the question,
and remembers "always" answers: edits for the session, by switching to ``accept-edits``;
commands by their parsed prefixes, MCP tools by name, web requests by host (or search
backend) and memory writes as one, per workspace and across restarts, through a ``RuleStore``.
Tools reach it through the approval gate (``agent_core.approval.gate.admit``), once per action.

The policy (and the command grammar behind it) is imported where it is used, not here: a
session is built on ``session/new``, which should not wait for it; it loads with the tools.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal, Protocol

from msgspec import Struct
from msgspec.structs import replace

from agent_core.events import Location, NoticeRaised, TextContent, ToolContent, ToolKind
from agent_core.modes import Mode

if TYPE_CHECKING:
    from agent_core.safety.findings import Judgement
    from agent_core.safety.policy import Action, Situation

Decision = Literal["allow_once", "allow_always", "reject_once", "reject_always", "cancelled"]
RuleCategory = Literal["commands", "tools", "web", "memory"]  # web: hosts, search backends


class Option(Struct, frozen=True):
    option_id: str
    name: str
    kind: Literal["allow_once", "allow_always", "reject_once", "reject_always"]


class Grounds(Struct, frozen=True):
    """Why the policy asks: the row of its table that asks (``safety.policy.RULES``), and
    whether danger alone makes it ask, the mode running the action otherwise (what
    ``heron exec --allow-dangerous`` lets through)."""

    rule: str
    only_dangerous: bool = False


class ApprovalRequest(Struct, frozen=True):
    call_id: str
    title: str
    tool_kind: ToolKind
    options: tuple[Option, ...] = ()  # empty: ``Permissions.check`` chooses them
    content: tuple[ToolContent, ...] = ()
    locations: tuple[Location, ...] = ()
    grounds: Grounds | None = None  # set by ``Permissions.decide``; None: not the policy's


class ApprovalOutcome(Struct, frozen=True):
    decision: Decision
    option_id: str | None = None  # the chosen option, for requests whose ids are not kinds
    reason: str | None = None  # a rejection's reason goes back to the model

    @property
    def allowed(self) -> bool:
        return self.decision in ("allow_once", "allow_always")


class Approver(Protocol):
    async def request(self, request: ApprovalRequest) -> ApprovalOutcome: ...


class RuleStore(Protocol):
    """Remembered command prefixes and tool names for one workspace ("always allow" / "reject")."""

    def allowed(self, category: RuleCategory = "commands") -> frozenset[str]: ...
    def rejected(self, category: RuleCategory = "commands") -> frozenset[str]: ...
    def remember(
        self, prefix: str, *, allow: bool, category: RuleCategory = "commands"
    ) -> str | None:
        """None once the answer is kept for later sessions, else why it holds for this one only."""
        ...


class ApprovalCancelled(Exception):
    """The user cancelled a permission request: the turn ends as cancelled."""


class Permissions(Struct):
    """One session's approvals: its mode, its rules, and the user behind the ``Approver``."""

    mode: Mode
    approver: Approver
    rules: RuleStore
    on_mode_change: Callable[[Mode], Awaitable[None]]
    rejected_edits: bool = False
    sandboxed: bool = True  # commands run in a sandbox here, or none is required
    on_notice: Callable[[NoticeRaised], Awaitable[None]] | None = None  # an answer not saved

    async def set_mode(self, mode: Mode) -> None:
        if mode != self.mode:
            self.mode = mode
            await self.on_mode_change(mode)

    def situation(self, action: Action, judgement: Judgement | None = None) -> Situation:
        """What the policy looks at for ``action`` in this session: the mode, what the user
        always allows or rejects here, whether code runs sandboxed. ``judgement``: a command's,
        when the caller judged it already (it is not judged again)."""
        from agent_core.safety import policy

        category = category_of(action)
        edits = frozenset({policy.EDITS}) if self.rejected_edits else frozenset[str]()
        rejected = self.rules.rejected(category) | edits
        allowed = self.rules.allowed(category)
        return policy.situation_of(self.mode, action, allowed, rejected, self.sandboxed, judgement)

    async def check(self, action: Action, request: ApprovalRequest) -> str | None:
        """``decide`` for ``action`` in this session's situation."""
        return await self.decide(self.situation(action), request)

    async def decide(self, situation: Situation, request: ApprovalRequest) -> str | None:
        """None when the action may go ahead, else the refusal the model should read.

        The policy's table decides; when it asks, the question gets the answers that fit
        (``request.options``, when the caller left them empty) and the reason it asks, and an
        "always" answer is remembered. Raises ``ApprovalCancelled`` when the user cancels the
        question.
        """
        from agent_core.safety import policy

        rule, _, verdict, why = policy.rule_for(situation)
        reason = why(situation)
        if verdict == "allow":
            return None
        if verdict == "deny":
            return f"Refused: {reason}."
        always = policy.may_remember(situation)
        options = request.options or options_in(situation, always=always)
        because = (TextContent(f"Asking because {reason}."),) if reason else ()
        grounds = Grounds(rule, policy.only_dangerous(situation))
        outcome = await self.approver.request(
            replace(request, options=options, content=request.content + because, grounds=grounds)
        )
        if outcome.decision == "cancelled":
            raise ApprovalCancelled
        await self._remember(situation, outcome)
        if outcome.allowed:
            return None
        why = f" The user said: {outcome.reason}" if outcome.reason else ""
        return f"The user rejected this {_what(situation.action)}.{why}"

    async def _remember(self, situation: Situation, outcome: ApprovalOutcome) -> None:
        from agent_core.safety.policy import MEMORY, Command, Edit, MemoryWrite, ToolUse, WebAccess

        if outcome.decision not in ("allow_always", "reject_always"):
            return
        action = situation.action
        problems: list[str | None] = []
        if isinstance(action, Command):
            for prefix in situation.prefixes:
                problems.append(self.rules.remember(prefix, allow=outcome.allowed))
        elif isinstance(action, ToolUse):
            problems.append(
                self.rules.remember(action.tool, allow=outcome.allowed, category="tools")
            )
        elif isinstance(action, WebAccess):
            problems.append(self.rules.remember(action.site, allow=outcome.allowed, category="web"))
        elif isinstance(action, MemoryWrite):
            problems.append(self.rules.remember(MEMORY, allow=outcome.allowed, category="memory"))
        elif isinstance(action, Edit) and action.inside_roots:
            if outcome.allowed:
                await self.set_mode("accept-edits")
            else:
                self.rejected_edits = True
        problem = next((p for p in problems if p), None)
        if problem and self.on_notice is not None:
            await self.on_notice(
                NoticeRaised(
                    "warning",
                    "Answer not saved",
                    f"It holds in this session, but later sessions will ask again: {problem}.",
                )
            )


def options_for(action: Action, *, always: bool | None = None) -> tuple[Option, ...]:
    """The answers, worded for what is being asked; "always" only where it can be kept
    (``always``: whether it can, when the caller knows; else judged from the action)."""
    from agent_core.safety.policy import may_remember, situation_of

    situation = situation_of("ask", action, frozenset(), frozenset(), True)
    return options_in(situation, always=may_remember(situation) if always is None else always)


def options_in(situation: Situation, *, always: bool) -> tuple[Option, ...]:
    """The answers to a question about ``situation``'s action; "always" only when ``always``
    (a command's are worded with the prefixes its judgement found)."""
    from agent_core.safety.policy import Command, Edit, MemoryWrite, ToolUse, WebAccess

    once = (
        Option("allow_once", "Allow", "allow_once"),
        Option("reject_once", "Reject", "reject_once"),
    )
    match situation.action:
        case Command() if always and situation.prefixes:
            shown = ", ".join(f"`{p}`" for p in situation.prefixes)
            always_allow, always_reject = (
                f"Always allow {shown} here",
                f"Always reject {shown} here",
            )
        case ToolUse(title=title) | WebAccess(label=title):
            always_allow, always_reject = (
                f"Always allow {title} here",
                f"Always reject {title} here",
            )
        case Edit() if always:
            always_allow, always_reject = (
                "Allow all edits this session",
                "Reject all edits this session",
            )
        case MemoryWrite() if always:
            always_allow, always_reject = (
                "Always allow memory writes here",
                "Always reject memory writes here",
            )
        case _:
            return once
    return (
        once[0],
        Option("allow_always", always_allow, "allow_always"),
        once[1],
        Option("reject_always", always_reject, "reject_always"),
    )


def category_of(action: Action) -> RuleCategory:
    """Where "always" answers about ``action`` are kept."""
    from agent_core.safety import policy

    if isinstance(action, policy.ToolUse):
        return "tools"
    if isinstance(action, policy.MemoryWrite):
        return "memory"
    return "web" if isinstance(action, policy.WebAccess) else "commands"


def _what(action: Action) -> str:
    from agent_core.safety import policy

    names: dict[type[Action], str] = {
        policy.Edit: "edit",
        policy.Command: "command",
        policy.ToolUse: "tool call",
        policy.WebAccess: "web request",
        policy.Script: "script",
        policy.Unconfined: "run outside the sandbox",
        policy.LeavePlanMode: "plan",
        policy.MemoryWrite: "memory write",
    }
    return names[type(action)]
