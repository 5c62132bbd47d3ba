"""The turn loop against the scripted model, with real tools written for the test."""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping
from typing import Any

import anyio
import pytest
from msgspec.structs import replace
from pydantic import BaseModel

from agent_core.approval.permissions import Permissions
from agent_core.errors import ToolError
from agent_core.events import (
    MessageDelta,
    ThoughtDelta,
    ToolCallStarted,
    ToolCallUpdated,
    TurnEnded,
    UsageUpdated,
)
from agent_core.loop.agent import CANCELLED_RESULT, NOT_RUN_RESULT, Agent
from agent_core.loop.execution import execute
from agent_core.messages import (
    AssistantMessage,
    ImagePart,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UserMessage,
)
from agent_core.models.base import ModelRequest, StreamEvent
from agent_core.models.scripted import Rule, ScriptedModel
from agent_core.ports.runner import LocalRunner
from agent_core.tools.base import ToolContext, ToolOutput
from tests.support.agents import AllowAll, NoRules, NoWorkspace, ignore, make_agent
from tests.support.sandbox import no_sandbox

pytestmark = pytest.mark.anyio


class NumberArguments(BaseModel):
    n: int


class SlowTool:
    """Records when it runs; read-only calls of one response should overlap."""

    kind = "read"
    description = "waits a moment and reports"
    arguments = NumberArguments

    def __init__(
        self, name: str, read_only: bool, log: list[str], fail: bool = False, delay: float = 0.05
    ) -> None:
        self.name, self.read_only, self._log, self._fail, self._delay = (
            name,
            read_only,
            log,
            fail,
            delay,
        )

    def title(self, arguments: Mapping[str, Any]) -> str:
        return f"{self.name} {arguments.get('n')}"

    async def run(self, arguments: NumberArguments, context: ToolContext) -> str:
        self._log.append(f"start {arguments.n}")
        await anyio.sleep(self._delay)
        self._log.append(f"end {arguments.n}")
        if self._fail:
            raise ToolError(f"tool {arguments.n} failed on purpose")
        return f"result {arguments.n}"


def scripted(*replies: list[dict[str, Any]]) -> ScriptedModel:
    return ScriptedModel("test", (Rule(re.compile(""), tuple(tuple(r) for r in replies)),), 0.0)


def assert_alternates(history: tuple[Message, ...]) -> None:
    kinds = [m.kind for m in history]
    assert all(a != b for a, b in itertools.pairwise(kinds)), kinds
    assert kinds[0] == "user"


async def collect(agent: Agent, text: str) -> list[Any]:
    return [event async for event in agent.run_turn((TextPart(text),))]


async def test_text_and_thinking_stream_as_deltas_of_one_message() -> None:
    agent = make_agent(scripted([{"thinking": "let me see"}, {"text": "hello there world"}]))
    events = await collect(agent, "hi")
    deltas = [e for e in events if isinstance(e, MessageDelta)]
    assert "".join(d.text for d in deltas) == "hello there world"
    assert len(deltas) == 3 and len({d.message_id for d in deltas}) == 1
    assert "".join(e.text for e in events if isinstance(e, ThoughtDelta)) == "let me see"
    assert events[-1] == TurnEnded("end_turn")
    assert isinstance(agent.history[-1], AssistantMessage)
    assert agent.history[-1].text == "hello there world"


async def test_tool_round_trip_keeps_results_in_call_order_and_runs_reads_concurrently() -> None:
    log: list[str] = []
    tools = {"look": SlowTool("look", True, log), "change": SlowTool("change", False, log)}
    calls = [{"tool_call": {"name": "look", "arguments": {"n": i}}} for i in (1, 2)]
    calls.append({"tool_call": {"name": "change", "arguments": {"n": 3}}})
    agent = make_agent(scripted(calls, [{"text": "done"}]), tools)
    events = await collect(agent, "go")
    assert log[:2] == ["start 1", "start 2"]  # the two reads overlapped
    assert log[2:] == ["end 1", "end 2", "start 3", "end 3"] or log[2:4] == ["end 2", "end 1"]
    results = agent.history[2]
    assert isinstance(results, UserMessage)
    assert [p.content for p in results.parts if isinstance(p, ToolResultPart)] == [
        "result 1",
        "result 2",
        "result 3",
    ]
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    assert [s.tool_kind for s in started] == ["read", "read", "read"]
    finals = [
        e.status
        for e in events
        if isinstance(e, ToolCallUpdated) and e.status in ("completed", "failed")
    ]
    assert finals == ["completed", "completed", "completed"]
    assert events[-1] == TurnEnded("end_turn")
    assert_alternates(agent.history)


async def test_tool_failures_and_unknown_tools_go_back_to_the_model() -> None:
    log: list[str] = []
    tools = {"boom": SlowTool("boom", False, log, fail=True)}
    agent = make_agent(
        scripted(
            [
                {"tool_call": {"name": "boom", "arguments": {"n": 1}}},
                {"tool_call": {"name": "nope", "arguments": {}}},
            ],
            [{"text": "recovered"}],
        ),
        tools,
    )
    events = await collect(agent, "go")
    failed = [e for e in events if isinstance(e, ToolCallUpdated) and e.status == "failed"]
    assert len(failed) == 2
    assert "failed on purpose" in (failed[0].output or "")
    assert "Unknown tool 'nope'" in (failed[1].output or "")
    assert events[-1] == TurnEnded("end_turn")


class Recording(ScriptedModel):
    """The scripted model, keeping every request it was sent."""

    def __init__(self, *replies: list[dict[str, Any]]) -> None:
        super().__init__("test", (Rule(re.compile(""), tuple(tuple(r) for r in replies)),), 0.0)
        self.requests: list[ModelRequest] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        async for event in super().stream(request):
            yield event


async def test_the_request_budget_warns_then_ends_the_turn_with_a_summary() -> None:
    """From 80% of the budget each request carries a note; at the limit one more request, tools
    off, asks for a summary, which is shown; the turn ends with max_turn_requests. The notes
    never enter the history."""
    forever = [{"tool_call": {"name": "nope", "arguments": {}}}, {"text": "Summary: tried."}]
    model = Recording(forever)
    agent = make_agent(model, max_requests=5)
    events = await collect(agent, "loop")
    assert events[-1] == TurnEnded("max_turn_requests")
    notes = [r.note for r in model.requests]
    assert notes[:3] == [None, None, None] and len(notes) == 6
    assert "request 4 of 5" in (notes[3] or "") and "request 5 of 5" in (notes[4] or "")
    assert "used all 5" in (notes[5] or "")
    assert [r.tool_choice for r in model.requests] == ["auto"] * 5 + ["none"]
    shown = "".join(e.text for e in events if isinstance(e, MessageDelta))
    assert shown.endswith("Summary: tried.")
    assert agent.history[-1].text == "Summary: tried."
    assert not any("[Heron:" in str(m) for m in agent.history)
    assert_alternates(agent.history)


async def test_a_summary_that_calls_tools_anyway_leaves_them_answered_not_run() -> None:
    stubborn = [{"tool_call": {"name": "nope", "arguments": {}}}]
    model = Recording(stubborn, stubborn, stubborn)
    model.stream = _ignoring_tool_choice(model)  # a model that calls tools regardless
    agent = make_agent(model, max_requests=2)
    events = await collect(agent, "loop")
    assert events[-1] == TurnEnded("max_turn_requests")
    last = agent.history[-1]
    assert isinstance(last, UserMessage)
    assert [p.content for p in last.parts if isinstance(p, ToolResultPart)] == [NOT_RUN_RESULT]
    assert_alternates(agent.history)


def _ignoring_tool_choice(model: Recording) -> Any:
    stream = model.stream

    async def any_choice(request: ModelRequest) -> AsyncIterator[StreamEvent]:
        async for event in stream(replace(request, tool_choice="auto")):
            yield event

    return any_choice


async def test_cancel_mid_stream_keeps_partial_text_and_the_next_turn_works() -> None:
    agent = make_agent(scripted([{"text": "partial answer"}, {"sleep": 30}]))
    seen: list[Any] = []
    with anyio.move_on_after(0.2):
        async for event in agent.run_turn((TextPart("first"),)):
            seen.append(event)
    assert "".join(e.text for e in seen if isinstance(e, MessageDelta)) == "partial answer"
    assert isinstance(agent.history[-1], AssistantMessage)
    assert agent.history[-1].text == "partial answer"
    agent.model = scripted([{"text": "second"}])
    events = await collect(agent, "again")
    assert events[-1] == TurnEnded("end_turn")
    assert_alternates(agent.history)


async def test_cancel_during_a_tool_closes_the_dangling_call() -> None:
    log: list[str] = []
    tools = {"slow": SlowTool("slow", False, log, delay=30)}
    agent = make_agent(scripted([{"tool_call": {"name": "slow", "arguments": {"n": 1}}}]), tools)
    with anyio.move_on_after(0.2):
        async for _ in agent.run_turn((TextPart("go"),)):
            pass
    last, [call] = agent.history[-1], agent.history[-2].tool_calls  # type: ignore[union-attr]
    assert isinstance(last, UserMessage)
    assert last.parts == (ToolResultPart(call.call_id, CANCELLED_RESULT, True),)
    assert_alternates(agent.history)


async def test_cancel_before_any_output_merges_prompts_to_keep_alternation() -> None:
    agent = make_agent(scripted([{"sleep": 30}]))
    with anyio.move_on_after(0.05):
        async for _ in agent.run_turn((TextPart("one"),)):
            pass
    agent.model = scripted([{"text": "ok"}])
    await collect(agent, "two")
    first = agent.history[0]
    assert isinstance(first, UserMessage) and first.text == "onetwo"
    assert_alternates(agent.history)


class Camera:
    name, kind, read_only, arguments = "camera", "other", True, NumberArguments
    description = "Take a picture"

    def title(self, arguments: Mapping[str, Any]) -> str:
        return "camera"

    async def run(self, arguments: NumberArguments, context: ToolContext) -> ToolOutput:
        return ToolOutput("a picture", (ImagePart("AAAA", "image/png"),))


@pytest.mark.anyio
@pytest.mark.parametrize("sees_images", [True, False])
async def test_a_tools_images_go_to_models_that_can_see_them(sees_images: bool) -> None:
    call = ToolCallPart("c1", "camera", {"n": 1})
    permissions = Permissions("ask", AllowAll(), NoRules(), ignore)
    context = ToolContext("c1", NoWorkspace(), permissions, ignore, LocalRunner({}), no_sandbox())
    result = await execute(call, {"camera": Camera()}, context, images=sees_images)
    if sees_images:
        assert result == ToolResultPart("c1", "a picture", images=(ImagePart("AAAA", "image/png"),))
    else:
        assert result.images == () and "1 image(s) shown to the user" in result.content


class AskingTool:
    """Hands the turn back to the user with a question, as ``clarify`` does without a way to
    ask inside the turn."""

    name, kind, read_only, description = "ask", "other", True, "asks the user"
    arguments = NumberArguments

    def title(self, arguments: Mapping[str, Any]) -> str:
        return "ask"

    async def run(self, arguments: NumberArguments, context: ToolContext) -> ToolOutput:
        return ToolOutput("Asked the user in the reply.", reply="Which of the two?")


async def test_a_tool_reply_ends_the_turn_with_the_question_as_the_answer() -> None:
    ask = [{"tool_call": {"name": "ask", "arguments": {"n": 1}}}]
    model = Recording(ask, [{"text": "never asked for"}])
    agent = make_agent(model, {"ask": AskingTool()})
    events = await collect(agent, "pick one")
    assert events[-1] == TurnEnded("end_turn") and len(model.requests) == 1
    shown = [e.text for e in events if isinstance(e, MessageDelta)]
    assert shown == ["Which of the two?"]
    assert [m.kind for m in agent.history] == ["user", "assistant", "user", "assistant"]
    assert agent.history[-1].text == "Which of the two?"
    assert "Asked the user" in str(agent.history[2])


async def test_a_meter_goes_on_from_the_usage_a_session_last_reported() -> None:
    from agent_core.loop.meter import ContextMeter
    from agent_core.models.scripted import ScriptedModel

    model = ScriptedModel("test", (), 0.0)  # a window of 200,000 tokens, no price
    assert ContextMeter().spend(0.5, model) == UsageUpdated(0, 200_000, 0.5)
    meter = ContextMeter(UsageUpdated(150_000, 200_000, 0.25))
    assert meter.over(model, 0.5)  # a full context is still full after a restart
    assert meter.spend(0.5, model) == UsageUpdated(150_000, 200_000, 0.75)  # a subagent's share
    assert ContextMeter(UsageUpdated(10, 200_000)).cost is None  # no price known then

    agent = make_agent(scripted([{"text": "hi"}]))
    agent.meter = ContextMeter(UsageUpdated(10, 200_000, 0.25))  # as a loaded session's is
    usages = [e for e in await collect(agent, "again") if isinstance(e, UsageUpdated)]
    assert usages and usages[-1].cost_usd == 0.25  # kept: this model's requests have no price


TURN_WITH_ONE_CALL = """
import re, sys, threading, anyio
from pydantic import BaseModel
from agent_core.approval.gate import JUDGE
from agent_core.messages import TextPart
from agent_core.models.scripted import Rule, ScriptedModel
from tests.support.agents import make_agent

class Watch:  # notes which thread looks for the judge first
    def find_spec(self, name, path=None, target=None):
        if name == JUDGE and not seen:
            seen.append(threading.current_thread().name)
seen = []
sys.meta_path.insert(0, Watch())

class NoArguments(BaseModel):
    pass

class Quiet:  # a tool of the kind given, which runs nothing itself
    kind = sys.argv[1]
    read_only = True
    description = "does nothing"
    arguments = NoArguments
    name = "quiet"
    def title(self, arguments):
        return "quiet"
    async def run(self, arguments, context):
        return "nothing"

replies = ([{"tool_call": {"name": "quiet", "arguments": {}}}], [{"text": "done"}])
model = ScriptedModel("t", (Rule(re.compile(""), tuple(tuple(r) for r in replies)),), 0.0)
agent = make_agent(model, {"quiet": Quiet()})
async def turn():
    return [event async for event in agent.run_turn((TextPart("go"),))]
anyio.run(turn)
for thread in threading.enumerate():
    if thread.name == "load the command judge":
        thread.join()
print(JUDGE in sys.modules, seen)
"""


@pytest.mark.parametrize(
    ("kind", "loaded"),
    [("execute", "True ['load the command judge']"), ("read", "False []")],
)
def test_a_command_the_model_begins_loads_the_judge_while_its_arguments_stream(
    kind: str, loaded: str
) -> None:
    """No model request needs the command judge: it loads when the model begins a call of a
    tool that runs commands (kind ``execute``), in a thread of its own, and for no other."""
    done = subprocess.run(
        [sys.executable, "-c", TURN_WITH_ONE_CALL, kind], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == loaded
