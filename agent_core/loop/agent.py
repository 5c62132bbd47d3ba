"""One agent turn: model request -> tool calls -> results -> model request ... -> end.

``Agent.run_turn`` is an async iterator of events. The caller owns the turn's cancel scope:
cancelling it stops the model stream and running tools at once, and the ``finally`` below
keeps history consistent (partial text is kept, dangling tool calls are closed).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing

import anyio

from agent_core.approvals import Approver
from agent_core.errors import ToolError
from agent_core.events import (
    Event,
    MessageDelta,
    StopReason,
    ThoughtDelta,
    ToolCallStarted,
    ToolCallUpdated,
    TurnEnded,
    UsageUpdated,
)
from agent_core.messages import (
    AssistantMessage,
    AssistantPart,
    Message,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    UserMessage,
    UserPart,
)
from agent_core.models.base import Model, ModelRequest, ResponseCompleted, ToolSpec
from agent_core.tools.base import ToolContext, Toolset
from agent_core.workspace import Workspace

DEFAULT_MAX_REQUESTS = 90
CANCELLED_RESULT = "The user cancelled this tool call before it finished."
FINISH_TO_STOP: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "tool_use": "end_turn",
    "max_tokens": "max_tokens",
    "refusal": "refusal",
}


class Agent:
    def __init__(
        self,
        *,
        model: Model,
        tools: Toolset,
        system_prompt: str,
        workspace: Workspace,
        approver: Approver,
        history: Sequence[Message] = (),
        max_requests: int = DEFAULT_MAX_REQUESTS,
    ) -> None:
        self.model = model
        self._tools = tools
        self._system = system_prompt
        self._workspace = workspace
        self._approver = approver
        self._history: list[Message] = list(history)
        self._max_requests = max_requests
        self._results: dict[str, ToolResultPart] = {}
        ordered = sorted(tools.values(), key=lambda t: t.name)  # a stable, cacheable prefix
        self._specs = tuple(ToolSpec(t.name, t.description, t.parameters()) for t in ordered)

    @property
    def history(self) -> tuple[Message, ...]:
        return tuple(self._history)

    async def run_turn(self, prompt: Sequence[UserPart]) -> AsyncGenerator[Event, None]:
        self._append_user(tuple(prompt))
        self._results = {}
        try:
            for _ in range(self._max_requests):
                completed: ResponseCompleted | None = None
                async with aclosing(self._call_model()) as stream:
                    async for event in stream:
                        if isinstance(event, ResponseCompleted):
                            completed = event
                        else:
                            yield event
                assert completed is not None, "a model stream must end with ResponseCompleted"
                usage = completed.usage
                yield UsageUpdated(
                    usage.input_tokens + usage.output_tokens, self.model.context_window
                )
                calls = completed.message.tool_calls
                if not calls:
                    yield TurnEnded(FINISH_TO_STOP[completed.finish])
                    return
                async with aclosing(self._run_tools(calls)) as tool_events:
                    async for event in tool_events:
                        yield event
                self._close_tool_calls()
            yield TurnEnded("max_turn_requests")
        finally:
            self._close_tool_calls()

    async def _call_model(self) -> AsyncGenerator[Event | ResponseCompleted, None]:
        """Stream one model response into history; on cancel keep the text that arrived."""
        message_id = str(uuid.uuid4())
        partial: list[AssistantPart] = []
        done = False
        request = ModelRequest(self._system, tuple(self._history), self._specs)
        try:
            async for event in self.model.stream(request):
                if event.kind == "text_delta":
                    _extend(partial, TextPart, event.text)
                    yield MessageDelta(message_id, event.text)
                elif event.kind == "thinking_delta":
                    _extend(partial, ThinkingPart, event.text)
                    yield ThoughtDelta(message_id, event.text)
                elif event.kind == "tool_call_began":
                    tool = self._tools.get(event.name)
                    kind = tool.kind if tool else "other"
                    yield ToolCallStarted(event.call_id, event.name, event.name, kind)
                elif event.kind == "response_completed":
                    message = AssistantMessage(event.message.parts, message_id)
                    self._history.append(message)
                    done = True
                    for call in message.tool_calls:
                        title = self._title(call)
                        yield ToolCallUpdated(call.call_id, title=title, arguments=call.arguments)
                    yield event
        finally:
            if not done and partial:  # a response cut short: keep its text, drop unrun calls
                self._history.append(AssistantMessage(tuple(partial), message_id))

    async def _run_tools(self, calls: tuple[ToolCallPart, ...]) -> AsyncGenerator[Event, None]:
        """Run the calls (consecutive read-only ones concurrently); results stay in call order."""
        for batch in _batches(calls, self._tools):
            for call in batch:
                yield ToolCallUpdated(call.call_id, status="in_progress")
            async with anyio.create_task_group() as group:
                for call in batch:
                    group.start_soon(self._run_one, call)
            for call in batch:
                result = self._results[call.call_id]
                status = "failed" if result.is_error else "completed"
                yield ToolCallUpdated(call.call_id, status=status, output=result.content)

    def _close_tool_calls(self) -> None:
        """Answer every call of the last response: with its result, or as cancelled."""
        last = self._history[-1] if self._history else None
        if not isinstance(last, AssistantMessage) or not last.tool_calls:
            return
        results = tuple(
            self._results.get(c.call_id) or ToolResultPart(c.call_id, CANCELLED_RESULT, True)
            for c in last.tool_calls
        )
        self._results = {}
        self._append_user(results)

    async def _run_one(self, call: ToolCallPart) -> None:
        results = self._results
        tool = self._tools.get(call.name)
        if tool is None:
            known = ", ".join(sorted(self._tools)) or "none"
            results[call.call_id] = ToolResultPart(
                call.call_id, f"Unknown tool {call.name!r}. Available tools: {known}.", True
            )
            return
        context = ToolContext(call.call_id, self._workspace, self._approver)
        try:
            results[call.call_id] = ToolResultPart(
                call.call_id, await tool.run(call.arguments, context)
            )
        except ToolError as exc:
            results[call.call_id] = ToolResultPart(call.call_id, str(exc), True)
        except Exception as exc:  # noqa: BLE001 - turn-runner boundary: a tool bug is a tool error
            results[call.call_id] = ToolResultPart(
                call.call_id, f"{type(exc).__name__}: {exc}", True
            )

    def _title(self, call: ToolCallPart) -> str:
        tool = self._tools.get(call.name)
        try:
            return tool.title(call.arguments) if tool else call.name
        except (KeyError, TypeError, ValueError):
            return call.name

    def _append_user(self, parts: tuple[UserPart, ...]) -> None:
        """Keep strict role alternation: consecutive user content merges into one message."""
        if self._history and isinstance(last := self._history[-1], UserMessage):
            self._history[-1] = UserMessage(last.parts + parts)
        else:
            self._history.append(UserMessage(parts))


def _extend(
    parts: list[AssistantPart], kind: type[TextPart] | type[ThinkingPart], text: str
) -> None:
    if parts and type(parts[-1]) is kind:
        parts[-1] = kind(parts[-1].text + text)  # type: ignore[union-attr]
    else:
        parts.append(kind(text))


def _batches(calls: tuple[ToolCallPart, ...], tools: Toolset) -> list[list[ToolCallPart]]:
    """Group consecutive read-only calls; every other call runs alone."""
    batches: list[list[ToolCallPart]] = []
    previous_read_only = False
    for call in calls:
        tool = tools.get(call.name)
        read_only = tool is None or tool.read_only  # an unknown tool only produces an error
        if read_only and previous_read_only:
            batches[-1].append(call)
        else:
            batches.append([call])
        previous_read_only = read_only
    return batches
