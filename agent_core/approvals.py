"""Who decides whether a tool call may run: the approval mode, remembered rules, and the user.

``decide`` is the policy as a pure function. ``Permissions`` applies it for one session: it asks
the user through the ``Approver`` port when the policy says so, and remembers "always" answers
(edits: for the session, by switching to ``accept-edits``; commands by prefix and MCP tools by
name: per workspace, across restarts, through a ``RuleStore``).
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from agent_core.dangerous import why_dangerous
from agent_core.events import Location, ToolContent, ToolKind
from agent_core.modes import Mode

Decision = Literal["allow_once", "allow_always", "reject_once", "reject_always", "cancelled"]
Verdict = Literal["allow", "ask", "deny"]
RuleCategory = Literal["commands", "tools"]
SHELL_OPERATORS = (";", "&", "|", "`", "$(", ">", "<", "\n")
# Programs whose first argument names what they do: "always allow" remembers both words.
SUBCOMMAND_PROGRAMS = frozenset(
    {
        "git",
        "npm",
        "pnpm",
        "yarn",
        "bun",
        "npx",
        "cargo",
        "go",
        "dotnet",
        "docker",
        "kubectl",
        "pip",
        "pip3",
        "uv",
        "poetry",
        "pdm",
        "hatch",
        "make",
        "just",
        "gradle",
        "mvn",
        "bundle",
        "rake",
        "mix",
        "swift",
        "deno",
        "brew",
        "apt",
        "apt-get",
        "conda",
        "gh",
        "terraform",
    }
)


@dataclass(frozen=True)
class Edit:
    path: Path
    inside_roots: bool


@dataclass(frozen=True)
class Command:
    command: str


@dataclass(frozen=True)
class ToolUse:
    """A call of a tool Heron does not know the effects of (an MCP server's)."""

    tool: str  # as the model names it: mcp__<server>__<tool>
    title: str  # as the user reads it
    read_only: bool = False  # the server says so; a hint, not a guarantee


@dataclass(frozen=True)
class Script:
    """Running model-written code (``execute_code``): like a command, but never the same twice,
    so there is no "always" for it."""


@dataclass(frozen=True)
class LeavePlanMode:
    pass


Action = Edit | Command | ToolUse | Script | LeavePlanMode


@dataclass(frozen=True)
class Option:
    option_id: str
    name: str
    kind: Literal["allow_once", "allow_always", "reject_once", "reject_always"]


@dataclass(frozen=True)
class ApprovalRequest:
    call_id: str
    title: str
    tool_kind: ToolKind
    options: tuple[Option, ...]
    content: tuple[ToolContent, ...] = ()
    locations: tuple[Location, ...] = ()


@dataclass(frozen=True)
class ApprovalOutcome:
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
    ) -> None: ...


class ApprovalCancelled(Exception):
    """The user cancelled a permission request: the turn ends as cancelled."""


def decide(
    mode: Mode,
    action: Action,
    *,
    allowed: frozenset[str] = frozenset(),
    rejected: frozenset[str] = frozenset(),
) -> tuple[Verdict, str | None]:
    """The policy: whether ``action`` runs, asks, or is refused (with the reason)."""
    match action:
        case Edit(inside_roots=False):
            return "ask", "the path is outside the workspace"
        case Edit() if mode == "plan":
            return "deny", "plan mode is read-only: leave it (switch_mode) before editing"
        case Edit():
            return ("ask", None) if mode == "ask" else ("allow", None)
        case Command(command=command):
            if reason := why_dangerous(command):
                return "ask", f"dangerous command: {reason}"
            if mode == "plan":
                return (
                    "deny",
                    "plan mode is read-only: leave it (switch_mode) before running commands",
                )
            prefix = command_prefix(command)
            if prefix in rejected and is_simple(command):
                return "deny", f"the user always rejects `{prefix}` in this workspace"
            if mode == "full-access" or (prefix in allowed and is_simple(command)):
                return "allow", None
            return "ask", None
        case ToolUse(tool=tool, read_only=read_only):
            if tool in rejected:
                return "deny", f"the user always rejects {tool} in this workspace"
            if mode == "plan" and not read_only:
                return (
                    "deny",
                    "plan mode is read-only: leave it (switch_mode) before using this tool",
                )
            if mode == "full-access" or tool in allowed:
                return "allow", None
            return "ask", None
        case Script():
            if mode == "plan":
                return "deny", "plan mode is read-only: leave it (switch_mode) before running code"
            return ("allow", None) if mode == "full-access" else ("ask", None)
        case LeavePlanMode():
            return "ask", None


def command_prefix(command: str) -> str:
    """What "always allow" remembers: the program and its subcommand (``git status``)."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    if len(words) >= 2 and words[0] in SUBCOMMAND_PROGRAMS and not words[1].startswith("-"):
        return " ".join(words[:2])
    return words[0] if words else ""


def is_simple(command: str) -> bool:
    """No chaining, pipes, substitution or redirection: a prefix rule covers all of it."""
    return not any(op in command for op in SHELL_OPERATORS)


@dataclass
class Permissions:
    """One session's approvals: its mode, its rules, and the user behind the ``Approver``."""

    mode: Mode
    approver: Approver
    rules: RuleStore
    on_mode_change: Callable[[Mode], Awaitable[None]]
    rejected_edits: bool = False

    async def set_mode(self, mode: Mode) -> None:
        if mode != self.mode:
            self.mode = mode
            await self.on_mode_change(mode)

    async def check(self, action: Action, request: ApprovalRequest) -> str | None:
        """None when the call may go ahead, else the refusal the model should read.

        Raises ``ApprovalCancelled`` when the user cancels the question.
        """
        if isinstance(action, Edit) and self.rejected_edits and action.inside_roots:
            return "The user rejected edits for the rest of this session."
        category: RuleCategory = "tools" if isinstance(action, ToolUse) else "commands"
        verdict, reason = decide(
            self.mode,
            action,
            allowed=self.rules.allowed(category),
            rejected=self.rules.rejected(category),
        )
        if verdict == "allow":
            return None
        if verdict == "deny":
            return f"Refused: {reason}."
        outcome = await self.approver.request(request)
        if outcome.decision == "cancelled":
            raise ApprovalCancelled
        await self._remember(action, outcome)
        if outcome.allowed:
            return None
        why = f" The user said: {outcome.reason}" if outcome.reason else ""
        return f"The user rejected this {_what(action)}.{why}"

    async def _remember(self, action: Action, outcome: ApprovalOutcome) -> None:
        always = outcome.decision in ("allow_always", "reject_always")
        if not always:
            return
        if isinstance(action, Command) and is_simple(action.command):
            self.rules.remember(command_prefix(action.command), allow=outcome.allowed)
        elif isinstance(action, ToolUse):
            self.rules.remember(action.tool, allow=outcome.allowed, category="tools")
        elif isinstance(action, Edit) and action.inside_roots:
            if outcome.allowed:
                await self.set_mode("accept-edits")
            else:
                self.rejected_edits = True


def options_for(action: Action) -> tuple[Option, ...]:
    """The four answers, worded for what is being asked."""
    match action:
        case Command(command=command) if is_simple(command) and not why_dangerous(command):
            prefix = command_prefix(command)
            always_allow = f"Always allow `{prefix}` here"
            always_reject = f"Always reject `{prefix}` here"
        case ToolUse(title=title):
            always_allow, always_reject = (
                f"Always allow {title} here",
                f"Always reject {title} here",
            )
        case Edit(inside_roots=True):
            always_allow, always_reject = (
                "Allow all edits this session",
                "Reject all edits this session",
            )
        case _:
            return (
                Option("allow_once", "Allow", "allow_once"),
                Option("reject_once", "Reject", "reject_once"),
            )
    return (
        Option("allow_once", "Allow", "allow_once"),
        Option("allow_always", always_allow, "allow_always"),
        Option("reject_once", "Reject", "reject_once"),
        Option("reject_always", always_reject, "reject_always"),
    )


def _what(action: Action) -> str:
    names: dict[type[Action], str] = {
        Edit: "edit",
        Command: "command",
        ToolUse: "tool call",
        Script: "script",
        LeavePlanMode: "plan",
    }
    return names[type(action)]
