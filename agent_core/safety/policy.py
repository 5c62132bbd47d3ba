"""The approval policy: one ordered table. The first rule that applies to an action decides
whether it runs, asks, or is refused.

The order is the point. After the question that leaves plan mode, remembered rejections refuse;
plan mode refuses every change next (a memory write asks there, see ``MemoryWrite``), so
nothing below can make it write; then what touches protected paths, reaches outside the
workspace, or is dangerous or unreadable asks, whatever the mode and whatever was remembered;
only then do the modes and the remembered answers decide. ``decide`` is pure, and
``tests/test_approvals.py`` walks the table case by case.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from msgspec import Struct
from msgspec.structs import replace

from agent_core.modes import Mode

if TYPE_CHECKING:
    from agent_core.safety.findings import Judgement

Verdict = Literal["allow", "ask", "deny"]


class Edit(Struct, frozen=True):
    path: Path
    inside_roots: bool
    protected: str | None = None  # why the path is protected (.git, .env…), if it is
    hard_linked: bool = False  # the file has other names, possibly outside the workspace


class Command(Struct, frozen=True):
    command: str  # a shell command line, judged by its structure (judge.py)
    checkpointed: bool = False  # the turn's checkpoint is taken before it runs and keeps every
    # file it empties in place: /undo restores them, so that alone does not ask (see
    # findings.Judgement.emptied and checkpoints.coverage)
    not_kept: str | None = None  # why the turn's checkpoint does not keep one (the question says)


class ToolUse(Struct, frozen=True):
    """A call of a tool Heron does not know the effects of (an MCP server's)."""

    tool: str  # as the model names it: mcp__<server>__<tool>
    title: str  # as the user reads it
    read_only: bool = False  # the server says so; a hint, not a guarantee


class WebAccess(Struct, frozen=True):
    """A request to the web (``web_fetch``, ``web_search``). It changes nothing here, so plan
    mode allows it; but what it sends leaves the machine, and what it reads may be written to
    mislead, so it asks in every mode but full access, unless the user always allows it."""

    site: str  # what an "always" answer keeps: a host, or ``search:<backend>``
    label: str  # as the user reads it: "docs.python.org", "web searches through Brave Search"


class Script(Struct, frozen=True):
    """Running model-written code (``execute_code``): like a command, but never the same twice,
    so there is no "always" for it."""


class Unconfined(Struct, frozen=True):
    """Running a command again outside the sandbox, after the sandbox refused it."""

    command: str
    refusal: str  # what the sandbox refused


class LeavePlanMode(Struct, frozen=True):
    pass


class MemoryWrite(Struct, frozen=True):
    """A change to the agent's memory (``agent_core.memory.notes``). It is not a workspace file: no
    checkpoint covers it, the editor does not review it, and it outlives the session, in every
    later session's system prompt in every workspace. So it asks in plan mode (which never
    writes it without a question, "always" or not), in ask mode, and in accept-edits (which
    applies the workspace's edits, not this); full access writes it, as it runs everything it
    is not warned about. "Always" answers about it are kept per workspace (``MEMORY``)."""

    file: str  # as the user reads it: notes.md, user.md


Action = Edit | Command | ToolUse | WebAccess | Script | Unconfined | LeavePlanMode | MemoryWrite


class Situation(Struct, frozen=True):
    """What the rules look at: the mode, and the facts of the action."""

    mode: Mode
    action: Action
    writes: bool  # may change something
    protected: str | None = None
    outside: str | None = None
    concern: str | None = None  # dangerous, or unreadable before it runs
    runs_code: bool = False  # a command or a script, which the sandbox confines
    sandboxed: bool = True  # a sandbox confines code here, or none is required
    remembered: Literal["allow", "reject"] | None = None
    rejection: str | None = None  # what the remembered rejection was
    read_only_command: bool = False
    prefixes: tuple[str, ...] = ()  # a command's: what "always" would remember of it


EDITS = "(edits)"  # in ``rejected``: the user rejected edits for the rest of the session
MEMORY = "writes"  # in the memory category's ``allowed``/``rejected``: memory writes here
LASTING = "memory outlives this session: later sessions read it in their system prompt"
PLAN = "plan mode is read-only: leave it (switch_mode) before changing anything"
NO_SANDBOX = "there is no sandbox here, so commands ask first"

Rule = tuple[str, Callable[[Situation], bool], Verdict, Callable[[Situation], str | None]]
RULES: tuple[Rule, ...] = (
    (
        "leaving plan mode asks",
        lambda s: isinstance(s.action, LeavePlanMode),
        "ask",
        lambda s: None,
    ),
    (
        "remembered rejections refuse",
        lambda s: s.remembered == "reject",
        "deny",
        lambda s: s.rejection,
    ),
    (  # what outlives the session is never written in plan mode without a question
        "memory asks in plan mode",  # "always" answers do not hold here
        lambda s: s.mode == "plan" and isinstance(s.action, MemoryWrite),
        "ask",
        lambda s: LASTING,
    ),
    ("plan mode changes nothing", lambda s: s.mode == "plan" and s.writes, "deny", lambda s: PLAN),
    (
        "running outside the sandbox asks",
        lambda s: isinstance(s.action, Unconfined),
        "ask",
        lambda s: s.action.refusal if isinstance(s.action, Unconfined) else None,
    ),
    ("protected paths ask", lambda s: s.protected is not None, "ask", lambda s: s.protected),
    ("outside the workspace asks", lambda s: s.outside is not None, "ask", lambda s: s.outside),
    ("dangerous or unreadable asks", lambda s: s.concern is not None, "ask", lambda s: s.concern),
    (
        "code without a sandbox asks",
        lambda s: s.runs_code and not s.sandboxed,
        "ask",
        lambda s: NO_SANDBOX,
    ),
    # Memory too: full access is the mode without prompts (the memory screens still refuse).
    ("full access runs", lambda s: s.mode == "full-access", "allow", lambda s: None),
    ("remembered approvals run", lambda s: s.remembered == "allow", "allow", lambda s: None),
    (  # the workspace's files, which checkpoints cover and the editor shows; not memory
        "accept-edits applies edits",
        lambda s: s.mode == "accept-edits" and isinstance(s.action, Edit),
        "allow",
        lambda s: None,
    ),
    ("read-only commands run", lambda s: s.read_only_command, "allow", lambda s: None),
    (  # in ask and accept-edits: no checkpoint covers memory, every later session reads it
        "memory asks",
        lambda s: isinstance(s.action, MemoryWrite),
        "ask",
        lambda s: LASTING,
    ),
    ("everything else asks", lambda s: True, "ask", lambda s: None),
)


def decide(
    mode: Mode,
    action: Action,
    *,
    allowed: frozenset[str] = frozenset(),
    rejected: frozenset[str] = frozenset(),
    sandboxed: bool = True,
) -> tuple[Verdict, str | None]:
    """Whether ``action`` runs, asks, or is refused, and why. ``allowed``/``rejected``: what
    the user always allows or rejects here (command prefixes, or tool names)."""
    return apply(situation_of(mode, action, allowed, rejected, sandboxed))


def apply(situation: Situation) -> tuple[Verdict, str | None]:
    _, _, verdict, reason = rule_for(situation)
    return verdict, reason(situation)


def rule_for(situation: Situation) -> Rule:
    """The first rule of the table that applies."""
    return next(rule for rule in RULES if rule[1](situation))


def only_dangerous(situation: Situation) -> bool:
    """Whether danger alone makes ``situation`` ask: it is dangerous (or unreadable), and the
    mode would run it were it not."""
    return situation.concern is not None and apply(replace(situation, concern=None))[0] == "allow"


def changes_workspace(situation: Situation) -> bool:
    """Whether the action, once allowed, may change the workspace's files: the turn's
    checkpoint is taken before it. Not memory (no workspace file), nor the web, nor a command
    run again outside the sandbox (its first run was the change); in plan mode nothing that
    writes is allowed, so nothing here is true there."""
    match situation.action:
        case Edit(inside_roots=inside):
            return inside
        case Command() | Script() | ToolUse():
            return situation.writes
        case _:
            return False


def may_remember(situation: Situation) -> bool:
    """Whether an "always" answer could be kept: not for what asks in every mode, nor for a
    memory write in plan mode, which asks whatever was answered before."""
    if situation.mode == "plan" and isinstance(situation.action, MemoryWrite):
        return False
    return (
        situation.protected is None
        and situation.outside is None
        and situation.concern is None
        and (situation.sandboxed or not situation.runs_code)
    )


def situation_of(
    mode: Mode,
    action: Action,
    allowed: frozenset[str],
    rejected: frozenset[str],
    sandboxed: bool,
    judgement: Judgement | None = None,
) -> Situation:
    """The facts the rules look at. ``judgement``: the command's, when the caller has judged
    it already (it is then not judged again); judged here when None."""
    match action:
        case Edit(inside_roots=inside, protected=protected, hard_linked=linked):
            outside = None
            if not inside:
                outside = "the path is outside the workspace"
            elif linked:
                outside = "the file has other hard links, possibly outside the workspace"
            if inside and EDITS in rejected:
                return Situation(
                    mode,
                    action,
                    True,
                    remembered="reject",
                    rejection="the user rejected edits for the rest of this session",
                )
            return Situation(mode, action, True, protected, outside)
        case Command(command=command, checkpointed=checkpointed, not_kept=not_kept):
            if judgement is None:
                from agent_core.safety.judge import judge  # the grammar loads after session/new

                judgement = judge(command)
            prefixes = frozenset(judgement.prefixes)
            refused = sorted(prefixes & rejected)
            return Situation(
                mode,
                action,
                writes=not judgement.read_only,
                concern=judgement.concern_given(checkpoint=checkpointed, not_kept=not_kept),
                runs_code=True,
                sandboxed=sandboxed,
                remembered="reject"
                if refused
                else "allow"
                if prefixes and prefixes <= allowed
                else None,
                rejection=f"the user always rejects `{refused[0]}` here" if refused else None,
                read_only_command=judgement.read_only,
                prefixes=judgement.prefixes,
            )
        case ToolUse(tool=tool, read_only=read_only):
            return Situation(
                mode,
                action,
                not read_only,
                remembered="reject" if tool in rejected else "allow" if tool in allowed else None,
                rejection=f"the user always rejects {tool} here",
            )
        case WebAccess(site=site, label=label):
            return Situation(
                mode,
                action,
                False,
                remembered="reject" if site in rejected else "allow" if site in allowed else None,
                rejection=f"the user always rejects {label} here",
            )
        case Script():
            return Situation(mode, action, True, runs_code=True, sandboxed=sandboxed)
        case MemoryWrite():
            remembered = "reject" if MEMORY in rejected else "allow" if MEMORY in allowed else None
            rejection = "the user always rejects memory writes here"
            return Situation(mode, action, True, remembered=remembered, rejection=rejection)
        case Unconfined() | LeavePlanMode():
            return Situation(mode, action, True)
