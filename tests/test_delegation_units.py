"""The ``delegate`` tool in one process, with the scripted model and tools written for the test:
who may run at once, which tools a subagent gets, how deep it may go, and the digest."""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest
from pydantic import BaseModel

from agent_core.approval.permissions import Permissions
from agent_core.delegation.digest import Digest
from agent_core.delegation.settings import DelegationSettings
from agent_core.delegation.tool import Delegate, DelegateArguments, Subagents
from agent_core.errors import ModelConfigError, ToolError
from agent_core.events import (
    Event,
    SubagentEnded,
    SubagentEvent,
    SubagentStarted,
    ToolCallStarted,
    ToolCallUpdated,
)
from agent_core.loop.agent import Agent
from agent_core.models.base import Model, ModelRequest, StreamEvent
from agent_core.models.scripted import Rule, ScriptedModel
from agent_core.ports.runner import LocalRunner
from agent_core.tools.base import Tool, ToolContext
from tests.support.agents import AllowAll, NoRules, NoWorkspace, ignore, make_agent
from tests.support.sandbox import no_sandbox

pytestmark = pytest.mark.anyio


class Nothing(BaseModel):
    pass


class Named:
    """A tool that only has a name and a kind of access."""

    kind, description, arguments = "other", "does nothing", Nothing

    def __init__(self, name: str, read_only: bool) -> None:
        self.name, self.read_only = name, read_only

    def title(self, arguments: Mapping[str, Any]) -> str:
        return self.name

    async def run(self, arguments: Nothing, context: ToolContext) -> str:
        return "done"


class Timed(ScriptedModel):
    """Answers every request after a pause, keeping when each one ran."""

    def __init__(self, log: list[tuple[float, float]]) -> None:
        reply = ({"sleep": 0.15}, {"text": "report"})
        super().__init__("child", (Rule(re.compile(""), (reply,)),), 0.0)
        self._log = log

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        started = time.monotonic()
        async for event in super().stream(request):
            yield event
        self._log.append((started, time.monotonic()))


TOOLS: dict[str, Tool] = {
    "look": Named("look", True),
    "change": Named("change", False),
    "todo": Named("todo", True),
}


def subagents(
    log: list[tuple[float, float]], tools: Mapping[str, Tool] = TOOLS, **settings: int
) -> Subagents:
    def model(spec: str | None) -> Model:
        if spec == "nowhere:x":
            raise ModelConfigError("unknown provider 'nowhere'")
        return Timed(log)

    return Subagents(
        tools,
        model,
        lambda spec: spec or "scripted:child",
        lambda: "sub",
        DelegationSettings(**settings),
    )


def delegations(*calls: dict[str, Any]) -> ScriptedModel:
    first = tuple({"tool_call": {"name": "delegate", "arguments": c}} for c in calls)
    rule = Rule(re.compile(""), (first, ({"text": "all reported"},)))
    return ScriptedModel("parent", (rule,), 0.0)


def overlapping(log: list[tuple[float, float]]) -> bool:
    return any(a[0] < b[1] and b[0] < a[1] for a in log for b in log if a is not b)


async def run_parent(parent: ScriptedModel, delegate: Delegate) -> list[Any]:
    agent = make_agent(parent, {"delegate": delegate})
    return [event async for event in agent.run_turn(())]


async def test_read_only_subagents_run_at_once_up_to_the_limit() -> None:
    log: list[tuple[float, float]] = []
    await run_parent(delegations({"task": "a"}, {"task": "b"}), Delegate(subagents(log)))
    assert len(log) == 2 and overlapping(log)
    log.clear()
    one_at_a_time = Delegate(subagents(log, max_parallel=1))
    await run_parent(delegations({"task": "a"}, {"task": "b"}), one_at_a_time)
    assert len(log) == 2 and not overlapping(log)


async def test_subagents_that_may_write_run_one_at_a_time() -> None:
    log: list[tuple[float, float]] = []
    writers = ({"task": "a", "tools": ["change"]}, {"task": "b", "tools": ["look", "change"]})
    await run_parent(delegations(*writers), Delegate(subagents(log)))
    assert len(log) == 2 and not overlapping(log)


async def test_a_subagent_gets_read_only_tools_by_default_and_never_the_parents_own() -> None:
    delegate = Delegate(subagents([]))
    assert set(delegate._tools_for(None)) == {"look"}  # pyright: ignore[reportPrivateUsage]
    assert set(delegate._tools_for(["look", "change"])) == {"look", "change"}  # pyright: ignore[reportPrivateUsage]
    with pytest.raises(ToolError, match="cannot have todo; it may have: change, look"):
        delegate._tools_for(["todo"])  # pyright: ignore[reportPrivateUsage]
    deeper = Delegate(subagents([], max_depth=2))
    nested = deeper._tools_for(None)  # pyright: ignore[reportPrivateUsage]
    assert set(nested) == {"look", "delegate"}
    assert "delegate" not in nested["delegate"]._tools_for(None)  # type: ignore[attr-defined]


async def test_an_unknown_model_is_an_error_the_model_reads() -> None:
    events = await run_parent(
        delegations({"task": "a", "model": "nowhere:x"}), Delegate(subagents([]))
    )
    [failed] = [e for e in events if isinstance(e, ToolCallUpdated) and e.status == "failed"]
    assert "No subagent with model 'nowhere:x'" in (failed.output or "")


async def test_the_report_is_the_result_and_the_childs_calls_name_their_parent() -> None:
    child_call = ({"tool_call": {"name": "look", "arguments": {}}},)
    child = ScriptedModel(
        "child", (Rule(re.compile(""), (child_call, ({"text": "found it"},))),), 0.0
    )
    shown: list[Event] = []

    async def report(event: Event) -> None:
        shown.append(event)

    parts = subagents([])
    delegate = Delegate(
        Subagents(parts.tools, lambda _: child, parts.model_name, lambda: "sub", parts.settings)
    )
    permissions = Permissions("ask", AllowAll(), NoRules(), ignore)
    context = ToolContext("", NoWorkspace(), permissions, report, LocalRunner({}), no_sandbox())
    agent = Agent(
        model=delegations({"task": "find"}),
        tools={"delegate": delegate},
        system_prompt="sys",
        tool_context=context,
    )
    events = [event async for event in agent.run_turn(())]
    [done] = [e for e in events if isinstance(e, ToolCallUpdated) and e.status == "completed"]
    assert done.output == "Report of the subagent (2 requests, 1 tool calls):\nfound it"
    [opened] = [e for e in shown if isinstance(e, SubagentStarted)]
    assert opened.call_id == done.call_id and opened.task.startswith("# Your task\nfind")
    theirs = [e for e in shown if isinstance(e, SubagentEvent)]
    started = [e.event for e in theirs if isinstance(e.event, ToolCallStarted)]
    assert [e.name for e in started] == ["look"]
    assert {(e.session_id, e.call_id) for e in theirs} == {(opened.session_id, done.call_id)}
    [ended] = [e for e in shown if isinstance(e, SubagentEnded)]
    assert (ended.session_id, ended.stop_reason, ended.error) == (
        opened.session_id,
        "end_turn",
        None,
    )
    assert shown.index(opened) < shown.index(theirs[0]) and shown.index(ended) > shown.index(
        theirs[-1]
    )


def test_the_digest_lists_the_latest_calls_with_their_status() -> None:
    digest = Digest("anthropic:claude-x")
    for n in range(8):
        digest.saw(ToolCallStarted(f"c{n}", "read_file", f"Read f{n}.py", "read"))
    assert digest.saw(ToolCallUpdated("c7", status="completed"))
    assert not digest.saw(ToolCallUpdated("c7", status="completed"))  # nothing new to show
    digest.requests, digest.writing = 3, True
    assert digest.text().splitlines() == [
        "Subagent · anthropic:claude-x · 3 requests",
        "  (2 earlier tool calls)",
        "· Read f2.py",
        "· Read f3.py",
        "· Read f4.py",
        "· Read f5.py",
        "· Read f6.py",
        "✓ Read f7.py",
        "✎ writing",
    ]
    assert DelegateArguments(task="x").tools is None


async def test_a_subagent_at_its_request_limit_reports_its_summary() -> None:
    looking = ({"tool_call": {"name": "look", "arguments": {}}}, {"text": "Looked twice; X left."})
    child = ScriptedModel("child", (Rule(re.compile(""), (looking,)),), 0.0)
    parts = subagents([], max_requests=2)
    delegate = Delegate(
        Subagents(parts.tools, lambda _: child, parts.model_name, lambda: "sub", parts.settings)
    )
    events = await run_parent(delegations({"task": "look around"}), delegate)
    [done] = [e for e in events if isinstance(e, ToolCallUpdated) and e.status == "completed"]
    assert done.output == (
        "Report of the subagent (3 requests, 2 tool calls, stopped at its request limit):\n"
        "Looked twice; X left."
    )
