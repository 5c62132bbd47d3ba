"""One agent turn: model request -> tool calls -> results -> model request ... -> end.

``Agent.run_turn`` is an async iterator of events. The caller owns the turn's cancel scope:
cancelling it stops the model stream and running tools at once, and the ``finally`` blocks
keep history consistent (partial text is kept, dangling tool calls are closed).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable, Collection, Sequence
from contextlib import aclosing
from typing import Literal

from msgspec.structs import replace

from agent_core.approval.gate import begin_loading_judge
from agent_core.approval.permissions import ApprovalCancelled
from agent_core.errors import ContextOverflow, ModelError, StreamInterrupted
from agent_core.events import (
    CompactionUpdated,
    Event,
    MessageDelta,
    NoticeRaised,
    StopReason,
    ToolCallStarted,
    ToolCallUpdated,
    TurnEnded,
)
from agent_core.loop.budget import budget_note, summary_note
from agent_core.loop.compacting import compact
from agent_core.loop.execution import ToolRunner, shown_interrupted, tool_specs
from agent_core.loop.history import History
from agent_core.loop.meter import ContextMeter
from agent_core.loop.rewind import cut_before
from agent_core.loop.translate import FINISH_TO_STOP, ArgumentsPreview, translate
from agent_core.messages import (
    AssistantMessage,
    Message,
    TextPart,
    ToolCallPart,
    UserMessage,
    UserPart,
)
from agent_core.models.assembly import ResponseAssembler
from agent_core.models.base import Model, ModelRequest, ResponseCompleted
from agent_core.tools.base import ToolContext, Toolset, call_title

DEFAULT_MAX_REQUESTS = 90
CANCELLED_RESULT = "The user cancelled this tool call before it finished."
NOT_RUN_RESULT = "Not run: the turn had reached its request limit."
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
        self._history = History(history)
        self._save = save
        self._compact_at = compact_at  # fraction of the window that triggers a compaction
        self.meter = ContextMeter()  # how full the context is, and the cost so far
        self._notices = list(notices)  # told once, at the start of the next turn
        self._max_requests = max_requests
        self.reasoning_effort = reasoning_effort  # the user may change it between turns
        self._runner = ToolRunner(tools, replace(tool_context, spend=self._spend))
        self._finish: StopReason = "end_turn"  # how the last response ended
        tool_specs(tools)  # each tool's schema built now (cached), not in the first request

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

    async def rewind(self, prompt: str, later: Collection[str]) -> None:
        """The conversation back to before ``prompt`` (``later``: its id and every later
        prompt's), saved; raises ``rewind.RewindRefused`` where a summary stands in the way."""
        kept = cut_before(self._history.messages, prompt, later)
        self._history.replace(self._history.messages[:kept])
        self.meter.in_context = 0
        await self.save()

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

    async def run_turn(
        self, prompt: Sequence[UserPart], message_id: str = ""
    ) -> AsyncGenerator[Event, None]:
        """One turn for the user's ``prompt`` (``message_id``: its id, which a rewind names)."""
        while self._notices:
            yield self._notices.pop(0)
        self._history.add(UserMessage(tuple(prompt), message_id))
        await self.save()
        try:
            overflowed = False  # the provider said the last request did not fit
            for number in range(1, self._max_requests + 1):
                if overflowed or self.meter.over(self.model, self._compact_at):
                    async with aclosing(self.compact(force=overflowed)) as compaction:
                        async for event in compaction:
                            yield event
                note = budget_note(number, self._max_requests)
                try:
                    async with aclosing(self._respond(note)) as stream:
                        async for event in stream:
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
                overflowed = False
                calls = self._last_calls()
                if not calls:
                    yield TurnEnded(self._finish)
                    return
                cancelled = False  # the user cancelled a question (an except* clause cannot return)
                try:
                    async with aclosing(
                        self._runner.run(calls, images=self.model.accepts_images)
                    ) as events:
                        async for event in events:
                            yield event
                except* ApprovalCancelled:
                    cancelled = True
                if cancelled:
                    yield TurnEnded("cancelled")
                    return
                self._close_tool_calls()
                await self.save()
                if (reply := self._runner.take_reply()) is not None:  # a question for the user
                    yield MessageDelta(str(uuid.uuid4()), reply)
                    self._history.add(AssistantMessage((TextPart(reply),)))
                    await self.save()
                    yield TurnEnded("end_turn")
                    return
            async with aclosing(self._sum_up()) as events:
                async for event in events:
                    yield event
            yield TurnEnded("max_turn_requests")
        finally:
            self._close_tool_calls()

    async def _sum_up(self) -> AsyncGenerator[Event, None]:
        """At the request limit: one last request, tools off, for what was done and what is
        left; a failure of it leaves the turn as it was."""
        try:
            async with aclosing(self._respond(summary_note(self._max_requests), "none")) as stream:
                async for event in stream:
                    yield event
        except ModelError as exc:  # the turn's work is done and saved; only the summary is lost
            yield NoticeRaised("warning", "No summary of the turn", str(exc))
        self._close_tool_calls(NOT_RUN_RESULT)  # calls it made anyway
        await self.save()

    async def _respond(
        self, note: str | None, tool_choice: Literal["auto", "none"] = "auto"
    ) -> AsyncGenerator[Event, None]:
        """One model request whose response is streamed, kept and metered."""
        completed: ResponseCompleted | None = None
        async with aclosing(self._call_model(note, tool_choice)) as stream:
            async for event in stream:
                if isinstance(event, ResponseCompleted):
                    completed = event
                else:
                    yield event
        assert completed is not None, "a model stream must end with ResponseCompleted"
        self._finish = FINISH_TO_STOP[completed.finish]
        await self.save()
        yield self.meter.record(completed, self.model)
        if warning := self.meter.warning(self.model):
            yield warning

    async def _call_model(
        self, note: str | None, tool_choice: Literal["auto", "none"]
    ) -> AsyncGenerator[Event | ResponseCompleted, None]:
        """Stream one model response into history; on cancel keep the text that arrived."""
        message_id = str(uuid.uuid4())
        received = ResponseAssembler()  # what arrived, kept if the reply is cut short
        previews: dict[str, ArgumentsPreview] = {}
        done = False
        self._history.mend()
        request = ModelRequest(
            self._system,
            self._history.messages,
            tool_specs(self._tools),  # each request's: tools may be switched off in a mode
            reasoning_effort=self.reasoning_effort,
            note=note,
            tool_choice=tool_choice,
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
                    if (
                        isinstance(translated, ToolCallStarted)
                        and translated.tool_kind == "execute"
                    ):
                        begin_loading_judge()  # while the command's arguments stream
                    yield translated
        finally:  # a reply cut short keeps its text; its calls never ran
            if not done and (kept := received.so_far()):
                self._history.add(AssistantMessage(kept, message_id))

    def _spend(self, cost: float) -> Event:
        return self.meter.spend(cost, self.model)

    def _last_calls(self) -> tuple[ToolCallPart, ...]:
        last = self._history.last
        return last.tool_calls if isinstance(last, AssistantMessage) else ()

    def _close_tool_calls(self, missing: str = CANCELLED_RESULT) -> None:
        """Answer every call of the last response: with its result, or with ``missing``."""
        if calls := self._last_calls():
            self._append_user(self._runner.answers(calls, missing))

    def _append_user(self, parts: tuple[UserPart, ...]) -> None:
        self._history.add(UserMessage(parts))
