"""One agent turn: model request -> tool calls -> results -> model request ... -> end.

``Agent.run_turn`` is an async iterator of events. The caller owns the turn's cancel scope:
cancelling it stops the model stream and running tools at once, and the ``finally`` blocks
keep history consistent (partial text is kept, dangling tool calls are closed).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from contextlib import aclosing
from dataclasses import replace

import anyio

from agent_core.approvals import ApprovalCancelled
from agent_core.errors import ContextOverflow, StreamInterrupted
from agent_core.events import (
    CompactionUpdated,
    Event,
    NoticeRaised,
    TextContent,
    ToolCallUpdated,
    TurnEnded,
)
from agent_core.loop.compacting import compact
from agent_core.loop.execution import batches, execute, shown_interrupted
from agent_core.loop.history import History
from agent_core.loop.meter import ContextMeter
from agent_core.loop.translate import FINISH_TO_STOP, ArgumentsPreview, translate
from agent_core.messages import (
    AssistantMessage,
    Message,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UserMessage,
    UserPart,
)
from agent_core.models.assembly import ResponseAssembler
from agent_core.models.base import Model, ModelRequest, ResponseCompleted, ToolSpec
from agent_core.tools.base import ToolContext, Toolset, arguments_schema, call_title

DEFAULT_MAX_REQUESTS = 90
CANCELLED_RESULT = "The user cancelled this tool call before it finished."
HistorySink = Callable[[Sequence[Message], bool], Awaitable[None]]  # (messages, replace all)


class Agent:
    def __init__(
        self,
        *,
        model: Model,
        tools: Toolset,
        system_prompt: str,
        tool_context: ToolContext,
        history: Sequence[Message] = (),
        max_requests: int = DEFAULT_MAX_REQUESTS,
        reasoning_effort: str | None = None,
        save: HistorySink | None = None,
        compact_at: float = 0.5,
        notices: Sequence[NoticeRaised] = (),
    ) -> None:
        self.model = model
        self._tools = tools
        self._system = system_prompt
        self._tool_context = tool_context  # its call_id is filled in per call
        self._history = History(history)
        self._save = save
        self._compact_at = compact_at  # fraction of the window that triggers a compaction
        self.meter = ContextMeter()  # how full the context is, and the cost so far
        self._notices = list(notices)  # told once, at the start of the next turn
        self._max_requests = max_requests
        self.reasoning_effort = reasoning_effort  # the user may change it between turns
        self._results: dict[str, ToolResultPart] = {}
        self._showed_content: set[str] = set()  # calls whose tool put its own content on screen
        ordered = sorted(tools.values(), key=lambda t: t.name)  # a stable, cacheable prefix
        self._specs = tuple(
            ToolSpec(t.name, t.description, arguments_schema(t.arguments)) for t in ordered
        )

    @property
    def history(self) -> tuple[Message, ...]:
        return self._history.messages

    def replace_system_prompt(self, text: str, notices: Sequence[NoticeRaised] = ()) -> None:
        self._system, self._notices = text, [*self._notices, *notices]  # only on /reload

    def interrupted_calls(self) -> list[Event]:
        """Once: how the calls a stopped process left unanswered show, failed, in the editor."""
        calls, self._history.interrupted = self._history.interrupted, ()
        return [event for call in calls for event in shown_interrupted(call, self._tools)]

    def remember(self, text: str) -> None:
        """Tell the model something that happened outside a turn (a restore); it joins the next
        prompt, which keeps the conversation's roles alternating."""
        self._append_user((TextPart(text),))

    async def save(self) -> None:
        """Hand every message completed since the last save to the sink (the session store)."""
        if self._save is not None and (pending := self._history.unsaved()) is not None:
            await self._save(*pending)

    async def compact(self, *, force: bool = False) -> AsyncGenerator[Event, None]:
        """Shorten the history (``/compact``, a full window, or a provider's overflow error)."""
        compaction_id = str(uuid.uuid4())
        yield CompactionUpdated(compaction_id, "in_progress")
        budget = int(self.model.context_window * self._compact_at)
        history, summary, error = await compact(
            self.model, self._history.messages, budget=budget, force=force
        )
        self._history.replace(history)
        self.meter.in_context = 0
        await self.save()
        yield CompactionUpdated(compaction_id, "failed" if error else "completed", summary, error)

    async def run_turn(self, prompt: Sequence[UserPart]) -> AsyncGenerator[Event, None]:
        while self._notices:
            yield self._notices.pop(0)
        self._append_user(tuple(prompt))
        await self.save()
        try:
            overflowed = False  # the provider said the last request did not fit
            for _ in range(self._max_requests):
                if overflowed or self.meter.over(self.model, self._compact_at):
                    async with aclosing(self.compact(force=overflowed)) as compaction:
                        async for event in compaction:
                            yield event
                completed: ResponseCompleted | None = None
                try:
                    async with aclosing(self._call_model()) as stream:
                        async for event in stream:
                            if isinstance(event, ResponseCompleted):
                                completed = event
                            else:
                                yield event
                except ContextOverflow:
                    if overflowed:
                        raise  # compacted already and it still does not fit
                    overflowed = True
                    continue
                except StreamInterrupted as exc:  # what arrived is kept; the turn ends here
                    yield NoticeRaised("error", "The model's response was cut off", str(exc))
                    yield TurnEnded("end_turn")
                    return
                assert completed is not None, "a model stream must end with ResponseCompleted"
                overflowed = False
                await self.save()
                yield self.meter.record(completed, self.model)
                if warning := self.meter.warning(self.model):
                    yield warning
                calls = completed.message.tool_calls
                if not calls:
                    yield TurnEnded(FINISH_TO_STOP[completed.finish])
                    return
                try:
                    async with aclosing(self._run_tools(calls)) as tool_events:
                        async for event in tool_events:
                            yield event
                except* ApprovalCancelled:  # the user cancelled a permission question
                    cancelled = True
                else:
                    cancelled = False
                if cancelled:
                    yield TurnEnded("cancelled")
                    return
                self._close_tool_calls()
                await self.save()
            yield TurnEnded("max_turn_requests")
        finally:
            self._close_tool_calls()

    async def _call_model(self) -> AsyncGenerator[Event | ResponseCompleted, None]:
        """Stream one model response into history; on cancel keep the text that arrived."""
        message_id = str(uuid.uuid4())
        received = ResponseAssembler()  # what arrived, kept if the reply is cut short
        previews: dict[str, ArgumentsPreview] = {}
        done = False
        self._history.mend()
        request = ModelRequest(
            self._system,
            self._history.messages,
            self._specs,
            reasoning_effort=self.reasoning_effort,
        )
        try:
            async for event in self.model.stream(request):
                if isinstance(event, ResponseCompleted):
                    message = AssistantMessage(event.message.parts, message_id)
                    self._history.add(message)
                    done = True
                    for call in message.tool_calls:
                        named = call_title(call.name, call.arguments, self._tools)
                        yield ToolCallUpdated(call.call_id, title=named, arguments=call.arguments)
                    yield event
                elif translated := translate(event, message_id, received, previews, self._tools):
                    yield translated
        finally:  # a reply cut short keeps its text; its calls never ran
            if not done and (kept := received.so_far()):
                self._history.add(AssistantMessage(kept, message_id))

    async def _run_tools(self, calls: tuple[ToolCallPart, ...]) -> AsyncGenerator[Event, None]:
        """Run the calls (consecutive read-only ones concurrently); results stay in call order."""
        for batch in batches(calls, self._tools):
            for call in batch:
                yield ToolCallUpdated(call.call_id, status="in_progress")
            async with anyio.create_task_group() as group:
                for call in batch:
                    group.start_soon(self._run_one, call)
            for call in batch:
                result = self._results[call.call_id]
                status = "failed" if result.is_error else "completed"
                # A tool that showed its own content (a diff, a terminal) keeps it on screen.
                shown = (
                    None if call.call_id in self._showed_content else (TextContent(result.content),)
                )
                yield ToolCallUpdated(
                    call.call_id, status=status, output=result.content, content=shown
                )

    async def _run_one(self, call: ToolCallPart) -> None:
        async def report(event: Event) -> None:
            if isinstance(event, ToolCallUpdated) and event.content:
                self._showed_content.add(call.call_id)
            await self._tool_context.report(event)

        context = replace(self._tool_context, call_id=call.call_id, report=report)
        images = self.model.accepts_images
        self._results[call.call_id] = await execute(call, self._tools, context, images=images)

    def _close_tool_calls(self) -> None:
        """Answer every call of the last response: with its result, or as cancelled."""
        last = self._history.last
        if not isinstance(last, AssistantMessage) or not last.tool_calls:
            return
        results = tuple(
            self._results.get(c.call_id) or ToolResultPart(c.call_id, CANCELLED_RESULT, True)
            for c in last.tool_calls
        )
        self._results = {}
        self._append_user(results)

    def _append_user(self, parts: tuple[UserPart, ...]) -> None:
        self._history.add(UserMessage(parts))
