"""One agent turn, streamed: each event the agent yields goes to the editor as a
``session/update``; a tool call the turn leaves open is closed as failed (never left spinning);
the workspace as the turn left it goes into the turn's checkpoint. ``session/cancel`` ends the
turn at once, wherever it is. Around it, the user's hooks: ``prompt_submitted`` before (it may
add to the prompt or refuse it), ``turn_ended`` after.
"""

from __future__ import annotations

from contextlib import aclosing
from typing import TYPE_CHECKING

import anyio

from acp_server.bridge.failures import to_rpc_error
from acp_server.bridge.updates import to_tool_call_update
from agent_core.errors import HeronError
from agent_core.events import (
    Event,
    NoticeRaised,
    StopReason,
    ToolCallStarted,
    ToolCallUpdated,
    TurnEnded,
)

if TYPE_CHECKING:
    from acp_server.session import Session
    from agent_core.checkpoints.session import Checkpoints
    from agent_core.hooks.runner import Hooks
    from agent_core.messages import UserPart

INTERRUPTED = "Stopped: the turn ended."


async def stream_turn(
    session: Session,
    checkpoints: Checkpoints,
    parts: tuple[UserPart, ...],
    message_id: str,
    compact: bool,
) -> StopReason:
    """Run the turn for the prompt ``message_id`` (``compact``: a compaction of the
    conversation instead) and say how it stopped."""
    stop: StopReason = "end_turn"
    unfinished: set[str] = set()  # tool calls shown but not yet completed or failed
    scope, cancels, recorded = anyio.CancelScope(), session.cancellations, True
    try:
        with scope:
            session.watch(scope)
            agent = session.agent
            agent.meter.new_turn()  # what the turn asks of the model, counted from here
            turn = agent.compact(force=True) if compact else agent.run_turn(parts, message_id)
            async with aclosing(turn) as events:
                async for event in events:
                    if isinstance(event, TurnEnded):
                        stop = event.stop_reason
                        continue
                    _track(event, unfinished)
                    await session.report(event)
    except HeronError as exc:  # one line that says what to do; never the SDK's exception
        raise to_rpc_error(exc) from exc
    finally:
        session.turn_scope = None
        with anyio.CancelScope(shield=True):
            for call_id in sorted(unfinished):  # never leave a tool call spinning in the editor
                closing = ToolCallUpdated(call_id, status="failed", output=INTERRUPTED)
                await session.show(to_tool_call_update(closing))
            hurried = scope.cancel_called or session.cancellations != cancels
            problem, recorded = await _record_turn_end(session, checkpoints, hurried=hurried)
            if problem:
                await session.report(NoticeRaised("warning", "Checkpoint", problem))
    return "cancelled" if scope.cancelled_caught or not recorded else stop


async def _record_turn_end(
    session: Session, checkpoints: Checkpoints, *, hurried: bool
) -> tuple[str | None, bool]:
    """The workspace as the turn left it, into its checkpoint: a notice if that failed, and
    False if a cancel stopped it (``session/cancel`` ends the turn at once, even here).
    ``hurried``: the turn was cancelled already, so the record gets little time."""
    try:
        with anyio.CancelScope() as recording:
            session.turn_scope = recording
            return await checkpoints.end_turn(hurried=hurried), True
    finally:
        session.turn_scope = None
    return "The end of this turn's checkpoint was not recorded: the turn was cancelled.", False


async def before_turn(
    session: Session, hooks: Hooks, parts: tuple[UserPart, ...]
) -> tuple[UserPart, ...] | None:
    """The prompt as its ``prompt_submitted`` hooks leave it (what they print joins it), or
    None when one refused it (the user is told why) or the user cancelled meanwhile."""
    from agent_core.hooks.prompts import PromptVerdict, prompt_submitted
    from agent_core.messages import TextPart

    verdict = PromptVerdict()
    text = " ".join(p.text for p in parts if isinstance(p, TextPart))
    try:
        with anyio.CancelScope() as scope:
            session.watch(scope)
            verdict = await prompt_submitted(hooks, text)
    finally:
        session.turn_scope = None
    if scope.cancelled_caught:
        return None
    if verdict.refused is not None:
        await session.report(NoticeRaised("warning", "Prompt refused by a hook", verdict.refused))
        return None
    return (*parts, TextPart(verdict.context)) if verdict.context else parts


async def after_turn(session: Session, hooks: Hooks, stop: StopReason) -> None:
    """The ``turn_ended`` hooks (not after a cancel: its answer waits for nothing); a cancel
    while they run stops them, not the turn that ended."""
    from agent_core.hooks.prompts import turn_ended

    try:
        with anyio.CancelScope() as scope:
            session.watch(scope)
            await turn_ended(hooks, stop)
    finally:
        session.turn_scope = None


def _track(event: Event, unfinished: set[str]) -> None:
    if isinstance(event, ToolCallStarted):
        unfinished.add(event.call_id)
    elif isinstance(event, ToolCallUpdated) and event.status in ("completed", "failed"):
        unfinished.discard(event.call_id)
