"""``delegate``: a task handed to a subagent, a child ``Agent`` with a fresh context.

The child works in the parent's workspace under the parent's approval policy, with tools taken
from the parent's and a request budget of its own. In the editor it is one tool call of the
parent, titled with the task, whose content is a live digest and a link to the child's own
session: everything the child's turn does is told as the child's (``SubagentEvent``), between
``SubagentStarted`` and ``SubagentEnded``, and the front end shows it as a session of its own or
folds it into the parent's. ``SubagentStarted.stop`` stops the child alone: the parent's turn
goes on with that as the call's result. Only the child's final report enters the parent's
context; the cost of its requests joins the session's.

Read-only subagents (the default: the parent's read-only tools) run several at once; a
subagent given a tool that changes things runs alone among the writing ones.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from contextlib import aclosing
from typing import Any

import anyio
from msgspec import Struct
from msgspec.structs import replace
from pydantic import Field

from agent_core.approval.permissions import ApprovalCancelled
from agent_core.delegation.digest import Digest
from agent_core.delegation.settings import DelegationSettings
from agent_core.errors import HeronError, ToolError
from agent_core.events import (
    Event,
    MessageDelta,
    SessionContent,
    StopReason,
    SubagentEnded,
    SubagentEvent,
    SubagentStarted,
    TextContent,
    ToolCallStarted,
    ToolCallUpdated,
    ToolKind,
    TurnEnded,
    UsageUpdated,
)
from agent_core.loop.agent import Agent
from agent_core.messages import AssistantMessage, TextPart
from agent_core.models.base import Model
from agent_core.tools.arguments import Arguments
from agent_core.tools.base import FileTracker, Tool, ToolContext, ToolOutput, Toolset

# What a subagent never gets: the parent's plan and mode are the parent's; questions for the
# user are the parent's to ask.
NOT_FOR_SUBAGENTS = frozenset({"todo", "switch_mode", "clarify", "delegate", "memory"})
TITLE_CHARS = 80


class DelegateArguments(Arguments):
    task: str = Field(
        min_length=1,
        description="What the subagent should do and report, in one or two sentences.",
    )
    context: str = Field(
        default="",
        description="What it needs to know that it cannot find quickly: files, findings, "
        "constraints. It does not see this conversation.",
    )
    tools: list[str] | None = Field(
        default=None,
        description="The tools it may use (names of your tools). Default: your read-only "
        "tools, for exploring, searching and reviewing. Name edit_file, write_file or "
        "terminal only when it must change files or run commands.",
    )
    model: str | None = Field(
        default=None, description='"<provider>:<model>" for the subagent; default: yours.'
    )


class Subagents(Struct, frozen=True):
    """What the composition root gives the ``delegate`` tool."""

    tools: Toolset  # the parent's; a subagent's are taken from these
    make_model: Callable[[str | None], Model]  # None: the session's current model
    model_name: Callable[[str | None], str]  # how the digest names it
    system_prompt: Callable[[], str]  # a subagent's own system prompt
    settings: DelegationSettings


class Delegate:
    name = "delegate"
    kind: ToolKind = "other"
    read_only = True  # several calls of one response start together; writers then queue
    arguments = DelegateArguments
    description = (
        "Hand a self-contained task to a subagent with a fresh context: exploring a large "
        "codebase, searching for every use of something, reviewing a change, or an independent "
        "piece of work. It works in the same workspace and returns only a report, which keeps "
        "your context small. Several read-only subagents run at once: call delegate several "
        "times in one response for independent questions. Give it everything it needs in task "
        "and context; it cannot see this conversation."
    )

    def __init__(self, subagents: Subagents, depth: int | None = None) -> None:
        self._subagents = subagents
        self._depth = subagents.settings.max_depth if depth is None else depth
        self._readers = anyio.CapacityLimiter(subagents.settings.max_parallel)
        self._writer = anyio.Lock()

    def title(self, arguments: Mapping[str, Any]) -> str:
        task = " ".join(str(arguments["task"]).split())
        return task if len(task) <= TITLE_CHARS else task[: TITLE_CHARS - 1] + "…"

    async def run(self, arguments: DelegateArguments, context: ToolContext) -> ToolOutput:
        tools = self._tools_for(arguments.tools)
        try:
            model = self._subagents.make_model(arguments.model)
        except HeronError as exc:
            raise ToolError(f"No subagent with model {arguments.model!r}: {exc}") from exc
        digest = Digest(self._subagents.model_name(arguments.model))
        writes = any(not tool.read_only for tool in tools.values())
        supervisor = _Supervisor(context, digest, f"{context.call_id}-{uuid.uuid4().hex[:12]}")
        its_own = replace(context, call_id="", report=supervisor.forward, files=FileTracker())
        system_prompt = await anyio.to_thread.run_sync(self._subagents.system_prompt)  # its files
        child = Agent(
            model=model,
            tools=tools,
            system_prompt=system_prompt,
            tool_context=its_own,
            max_requests=self._subagents.settings.max_requests,
        )
        async with self._writer if writes else self._readers:
            stop = await supervisor.run(
                child, self.title({"task": arguments.task}), _prompt(arguments)
            )
        report = _report(child)
        await supervisor.show(f"{digest.text()}\n\n{report}")
        if supervisor.stopped:  # the user stopped this subagent alone
            raise ToolError(f"The user stopped the subagent before it finished. {report}")
        if stop == "cancelled":  # the user cancelled one of its permission questions
            raise ApprovalCancelled
        limit = ", stopped at its request limit" if stop == "max_turn_requests" else ""
        work = f"{digest.requests} requests, {digest.calls} tool calls{limit}"
        return ToolOutput(f"Report of the subagent ({work}):\n{report}")

    def _tools_for(self, names: list[str] | None) -> dict[str, Tool]:
        offered = {n: t for n, t in self._subagents.tools.items() if n not in NOT_FOR_SUBAGENTS}
        if names is None:
            # read-only, and not `process`, which reaches the session's background commands
            chosen = {n: t for n, t in offered.items() if t.read_only and t.kind != "execute"}
        else:
            if unknown := sorted(set(names) - set(offered)):
                known = ", ".join(sorted(offered))
                raise ToolError(
                    f"A subagent cannot have {', '.join(unknown)}; it may have: {known}."
                )
            chosen = {n: offered[n] for n in names}
        if self._depth > 1:  # configured to let subagents delegate further
            chosen["delegate"] = Delegate(replace(self._subagents, tools=offered), self._depth - 1)
        return chosen


class _Supervisor:
    """Runs a child's turn as a session of its own: what it does told as its own, the digest
    and a link to it as the parent call's content, its cost added to the session's."""

    def __init__(self, context: ToolContext, digest: Digest, session_id: str) -> None:
        self._context, self._digest, self.session_id = context, digest, session_id
        self._spent = 0.0  # the child's cost so far, already added to the session's
        self._scope = anyio.CancelScope()
        self.stop: StopReason = "end_turn"
        self.stopped = False  # the user stopped it (``SubagentStarted.stop``)

    async def run(self, child: Agent, title: str, prompt: str) -> StopReason:
        context = self._context
        started = SubagentStarted(self.session_id, context.call_id, title, prompt, self._halt)
        await context.report(started)
        await self.show(self._digest.text())
        error: str | None = None
        try:
            with self._scope:
                async with aclosing(child.run_turn((TextPart(prompt),))) as events:
                    async for event in events:
                        await self.forward(event)
        except anyio.get_cancelled_exc_class():  # the parent's turn was cancelled
            self.stop = "cancelled"
            raise
        except HeronError as exc:
            error = str(exc)
            raise ToolError(f"The subagent stopped: {exc}") from exc
        finally:
            self.stopped = self._scope.cancelled_caught
            if self.stopped:
                self.stop = "cancelled"
            with anyio.CancelScope(shield=True):
                await context.report(SubagentEnded(self.session_id, self.stop, error))
        return self.stop

    def _halt(self) -> None:
        self._scope.cancel()

    async def forward(self, event: Event) -> None:
        """An event of the child's turn, or one its tools reported."""
        context, digest = self._context, self._digest
        match event:
            case ToolCallStarted() | ToolCallUpdated():
                if digest.saw(event):
                    await self.show(digest.text())
            case MessageDelta() if not digest.writing:
                digest.writing = True
                await self.show(digest.text())
            case UsageUpdated(cost_usd=cost):
                digest.requests += 1
                if cost is not None and context.spend is not None:
                    await context.report(context.spend(cost - self._spent))
                    self._spent = cost
                return  # the session's meter is the parent's
            case TurnEnded(stop_reason=reason):
                self.stop = reason
                return
            case _:
                pass
        await context.report(SubagentEvent(self.session_id, context.call_id, event))

    async def show(self, text: str) -> None:
        """The parent call's content: the digest (or the report), and the link to the child."""
        content = (TextContent(text), SessionContent(self.session_id))
        await self._context.report(ToolCallUpdated(self._context.call_id, content=content))


def _prompt(arguments: DelegateArguments) -> str:
    context = f"\n\n# What you should know\n{arguments.context}" if arguments.context else ""
    return (
        f"# Your task\n{arguments.task}{context}\n\n"
        "When you are done, reply with a concise report for the agent that gave you this "
        "task: what you found or changed (with file paths and line numbers), and anything "
        "left open."
    )


def _report(child: Agent) -> str:
    last = child.history[-1] if child.history else None
    text = last.text.strip() if isinstance(last, AssistantMessage) else ""
    return text or "(The subagent ended without a report.)"
