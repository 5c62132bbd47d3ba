"""Running the tool calls of one response: lookup, argument checks, error capture, batching."""

from __future__ import annotations

from pydantic import ValidationError

from agent_core.approvals import ApprovalCancelled
from agent_core.errors import ToolError
from agent_core.events import Event, TextContent, ToolCallStarted, ToolCallUpdated
from agent_core.loop.history import INTERRUPTED_RESULT
from agent_core.messages import ToolCallPart, ToolResultPart
from agent_core.tools.base import ToolContext, Toolset, call_title


async def execute(
    call: ToolCallPart, tools: Toolset, context: ToolContext, *, images: bool
) -> ToolResultPart:
    """The result of one call; every failure becomes an error result the model can read.

    ``images``: the model can see images, so a tool's images go along with its text.
    """

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
        output = await tool.run(arguments, context)
    except ToolError as exc:
        return failed(str(exc))
    except ApprovalCancelled:
        raise
    except Exception as exc:  # noqa: BLE001 - turn-runner boundary: a tool bug is a tool error
        return failed(f"{type(exc).__name__}: {exc}")
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
