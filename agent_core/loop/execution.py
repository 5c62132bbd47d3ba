"""Running the tool calls of one response: lookup, argument checks, error capture, batching."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import anyio
from msgspec.structs import replace
from pydantic import ValidationError

from agent_core.approval.permissions import ApprovalCancelled
from agent_core.errors import ToolError
from agent_core.events import Event, TextContent, ToolCallStarted, ToolCallUpdated
from agent_core.loop.history import INTERRUPTED_RESULT
from agent_core.messages import ToolCallPart, ToolResultPart
from agent_core.models.base import ToolSpec
from agent_core.tools.base import ToolContext, ToolOutput, Toolset, arguments_schema, call_title


class ToolRunner:
    """Runs the calls of one response after another (consecutive read-only ones at once) and
    keeps their results, in call order, for the history."""

    def __init__(self, tools: Toolset, context: ToolContext) -> None:
        self._tools = tools
        self._context = context  # its call_id is filled in per call
        self._results: dict[str, ToolResultPart] = {}
        self._showed_content: set[str] = set()  # calls whose tool put its own content on screen
        self.reply: str | None = None  # a tool handed the turn back to the user with this text

    async def run(
        self, calls: tuple[ToolCallPart, ...], *, images: bool
    ) -> AsyncGenerator[Event, None]:
        for batch in batches(calls, self._tools):
            for call in batch:
                yield ToolCallUpdated(call.call_id, status="in_progress")
            async with anyio.create_task_group() as group:
                for call in batch:
                    group.start_soon(self._run_one, call, images)
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

    def take_reply(self) -> str | None:
        """Once: the reply a tool ended the turn with."""
        reply, self.reply = self.reply, None
        return reply

    def answers(self, calls: tuple[ToolCallPart, ...], missing: str) -> tuple[ToolResultPart, ...]:
        """Once: a result for every call, ``missing`` as the error of those that did not run."""
        results, self._results = self._results, {}
        return tuple(
            results.get(c.call_id) or ToolResultPart(c.call_id, missing, True) for c in calls
        )

    async def _run_one(self, call: ToolCallPart, images: bool) -> None:
        async def report(event: Event) -> None:
            if isinstance(event, ToolCallUpdated) and event.content:
                self._showed_content.add(call.call_id)
            await self._context.report(event)

        context = replace(self._context, call_id=call.call_id, report=report)
        result, reply = await run_call(call, self._tools, context, images=images)
        self._results[call.call_id] = result
        if reply is not None:  # two questions in one response: both are asked
            self.reply = reply if self.reply is None else f"{self.reply}\n\n{reply}"


async def execute(
    call: ToolCallPart, tools: Toolset, context: ToolContext, *, images: bool
) -> ToolResultPart:
    """The result of one call; every failure becomes an error result the model can read.

    ``images``: the model can see images, so a tool's images go along with its text.
    """
    result, _ = await run_call(call, tools, context, images=images)
    return result


async def run_call(
    call: ToolCallPart, tools: Toolset, context: ToolContext, *, images: bool
) -> tuple[ToolResultPart, str | None]:
    """``execute``, and the reply a tool ends the turn with (``ToolOutput.reply``), if any."""
    output = await _output(call, tools, context)
    if isinstance(output, ToolResultPart):
        return output, None
    return _result(call, output, images), (None if isinstance(output, str) else output.reply)


async def _output(
    call: ToolCallPart, tools: Toolset, context: ToolContext
) -> str | ToolOutput | ToolResultPart:
    """What the tool returned, or the error result that stands in for it."""

    def failed(text: str) -> ToolResultPart:
        return ToolResultPart(call.call_id, text, is_error=True)

    if call.invalid_arguments is not None:
        return failed(f"Arguments must be a JSON object; got {call.invalid_arguments[:200]!r}.")
    tool = tools.get(call.name)
    if tool is None:
        known = ", ".join(sorted(tools)) or "none"
        return failed(f"Unknown tool {call.name!r}. Available tools: {known}.")
    try:
        arguments = tool.arguments.model_validate(call.arguments)
    except ValidationError as exc:
        return failed(f"Invalid arguments for {call.name}: {_problems(exc)}")
    except ToolError as exc:
        return failed(f"Invalid arguments for {call.name}: {exc}")
    try:
        return await tool.run(arguments, context)
    except ToolError as exc:
        return failed(str(exc))
    except ApprovalCancelled:
        raise
    except Exception as exc:  # noqa: BLE001 - turn-runner boundary: a tool bug is a tool error
        return failed(f"{type(exc).__name__}: {exc}")


def _result(call: ToolCallPart, output: str | ToolOutput, images: bool) -> ToolResultPart:
    if isinstance(output, str):
        return ToolResultPart(call.call_id, output)
    if output.images and not images:
        shown = f"[{len(output.images)} image(s) shown to the user; this model cannot see images]"
        return ToolResultPart(call.call_id, f"{output.text}\n{shown}".strip())
    return ToolResultPart(call.call_id, output.text, images=output.images)


def _problems(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()[:5]
    )


def tool_specs(tools: Toolset) -> tuple[ToolSpec, ...]:
    """The tools as the model sees them, sorted by name: a stable, cacheable prefix."""
    ordered = sorted(tools.values(), key=lambda t: t.name)
    return tuple(ToolSpec(t.name, t.description, arguments_schema(t.arguments)) for t in ordered)


def batches(calls: tuple[ToolCallPart, ...], tools: Toolset) -> list[list[ToolCallPart]]:
    """Group consecutive read-only calls to run together; every other call runs alone."""
    grouped: list[list[ToolCallPart]] = []
    previous_read_only = False
    for call in calls:
        tool = tools.get(call.name)
        read_only = tool is None or tool.read_only  # an unknown tool only produces an error
        if read_only and previous_read_only:
            grouped[-1].append(call)
        else:
            grouped.append([call])
        previous_read_only = read_only
    return grouped


def shown_interrupted(call: ToolCallPart, tools: Toolset) -> tuple[Event, Event]:
    """The editor's view of a call that was given ``INTERRUPTED_RESULT``: started, then failed."""
    tool = tools.get(call.name)
    title = call_title(call.name, call.arguments, tools)
    started = ToolCallStarted(call.call_id, call.name, title, tool.kind if tool else "other")
    failed = ToolCallUpdated(
        call.call_id,
        status="failed",
        arguments=call.arguments,
        output=INTERRUPTED_RESULT,
        content=(TextContent(INTERRUPTED_RESULT),),
    )
    return started, failed
