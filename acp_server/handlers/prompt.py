"""``session/prompt`` runs one agent turn and streams it; ``session/cancel`` stops it."""

from __future__ import annotations

import time
from contextlib import aclosing
from typing import Any

import anyio

from acp_server.bridge.content import UnsupportedContent, from_prompt, linked_uris
from acp_server.bridge.failures import to_rpc_error
from acp_server.bridge.updates import to_iso_time, to_session_update, to_tool_call_update
from acp_server.handlers import params
from acp_server.handlers.auth import follow_credentials
from acp_server.handlers.commands import run_command
from acp_server.handlers.greeting import accepts_images
from acp_server.handlers.linked import read_linked
from acp_server.handlers.sessions import tell_about_history
from acp_server.handlers.state import ServerState, Session
from acp_server.jsonrpc.errors import RpcError
from acp_server.jsonrpc.values import as_object
from agent_core.errors import HeronError
from agent_core.events import (
    Event,
    NoticeRaised,
    StopReason,
    ToolCallStarted,
    ToolCallUpdated,
    TurnEnded,
)
from agent_core.messages import ImagePart, TextPart, UserPart

TITLE_CHARS = 60


async def prompt(state: ServerState, raw: Any) -> dict[str, Any]:
    opened, ticket = _ticket(state, raw)  # before any await: a cancel or close sent after counts
    # What validates the request (pydantic) and runs the turn loads in a worker thread, the
    # first time: an import here would stop the event loop, and a cancel with it.
    await state.run_once("wire models", state.warm_up)
    from acp_server.handlers import wire

    request = wire.prompt_request(raw)
    if opened is not None and state.sessions.get(request.session_id) is not opened:
        return {"stopReason": "cancelled"}  # closed while this prompt loaded its parts
    session = state.session(request.session_id)
    blocks = [wire.dump(block) for block in request.prompt]
    roots = (session.setup.cwd, *session.setup.additional_directories)
    read = {uri: await read_linked(uri, roots) for uri in linked_uris(blocks)}
    linked = {uri: found.text for uri, found in read.items()}
    # Images are taken when the model sees them, or when `initialize` said they could be sent
    # and the session has since switched to a model that does not: kept for a model that can,
    # they are left out of this one's requests (``models.base.visible``), and the user told.
    images = session.parts.choice.model.accepts_images or accepts_images(state.settings)
    try:
        parts = from_prompt(blocks, linked, images=images)
    except UnsupportedContent as exc:
        raise RpcError.invalid_params(str(exc)) from None
    async with session.turn_lock:
        if session.cancellations != ticket:  # cancelled or closed while queued: no stale work
            return {"stopReason": "cancelled"}
        session.ticket = ticket  # what each step watched for a cancel compares with
        await _wait_until_ready(state, session)
        if session.cancellations != ticket:  # cancelled while it got ready
            return {"stopReason": "cancelled"}
        follow_credentials(state, session)  # a login or logout since the last prompt
        session.parts.transcript.user_prompt(blocks)
        await _tell_about_changed_instructions(state, session)
        for problem in [found.problem for found in read.values() if found.problem]:
            await _tell(state, session, NoticeRaised("warning", "Mention left out", problem))
        await _tell_about_unseen_images(state, session, parts)
        failure: Exception | None = None
        title = _title(session, blocks)
        async with session.parts.writes.running():  # the answer waits for the writes, not the turn
            if title is not None:  # written while the model works
                await session.parts.writes.submit(
                    lambda: state.store.update(session.id, title=title)
                )
            try:
                stop = await _prompt_or_command(state, session, parts)
            except Exception as exc:  # noqa: BLE001 - raised below, outside the writer's task group
                failure, stop = exc, "end_turn"
            finally:
                with anyio.CancelScope(shield=True):  # what happened is saved, however it ended
                    await session.agent.save()
                    rest = session.parts.transcript.drain(finished=True)
                    await session.parts.writes.submit(
                        lambda: state.store.append(session.id, (), rest)
                    )
        if failure is not None:
            raise failure
        if title is not None:
            update = {"sessionUpdate": "session_info_update", "title": title}
            await state.notify_update(session.id, {**update, "updatedAt": to_iso_time(time.time())})
        await tell_about_history(state, session)  # a save that failed: the session goes on unsaved
        return {"stopReason": stop}


async def cancel(state: ServerState, raw: Any) -> None:
    state.session(params.string(params.as_object(raw), "sessionId")).cancel()


async def _prompt_or_command(
    state: ServerState, session: Session, parts: tuple[UserPart, ...]
) -> StopReason:
    """A slash command runs here or becomes the prompt; anything else is a turn."""
    text = parts[0].text.strip() if len(parts) == 1 and isinstance(parts[0], TextPart) else ""
    if text == "/compact":
        return await _run_turn(state, session, parts, compact=True)
    if text.startswith("/"):
        prompt: str | None = None
        try:
            with anyio.CancelScope() as scope:  # a command waits on git too: /undo, /restore
                session.watch(scope)
                prompt = await run_command(state, session, text)
        finally:
            session.turn_scope = None
        if scope.cancelled_caught:
            return "cancelled"
        if prompt is None:
            return "end_turn"
        parts = (TextPart(prompt),)
    return await _run_turn(state, session, parts)


async def _run_turn(
    state: ServerState, session: Session, parts: tuple[UserPart, ...], *, compact: bool = False
) -> StopReason:
    stop: StopReason = "end_turn"
    notices = state.client.can("session", "notices")
    compaction = state.client.can("session", "compaction")
    unfinished: set[str] = set()  # tool calls shown but not yet completed or failed
    checkpoints = session.parts.checkpoints
    if not compact:
        checkpoints.begin_turn(" ".join(p.text for p in parts if isinstance(p, TextPart)))
    scope, cancels, recorded = anyio.CancelScope(), session.cancellations, True
    try:
        with scope:
            session.watch(scope)
            turn = session.agent.compact(force=True) if compact else session.agent.run_turn(parts)
            async with aclosing(turn) as events:
                async for event in events:
                    if isinstance(event, TurnEnded):
                        stop = event.stop_reason
                        continue
                    _track(event, unfinished)
                    update = to_session_update(event, notices=notices, compaction=compaction)
                    if update is not None:
                        await session.parts.send(update)
    except HeronError as exc:  # one line that says what to do; never the SDK's exception
        raise to_rpc_error(exc) from exc
    finally:
        session.turn_scope = None
        with anyio.CancelScope(shield=True):
            for call_id in sorted(unfinished):  # never leave a tool call spinning in the editor
                closing = ToolCallUpdated(
                    call_id, status="failed", output="Stopped: the turn ended."
                )
                await session.parts.send(to_tool_call_update(closing))
            hurried = scope.cancel_called or session.cancellations != cancels
            problem, recorded = await _record_turn_end(session, hurried=hurried)
            if problem:
                notice = NoticeRaised("warning", "Checkpoint", problem)
                if (update := to_session_update(notice, notices=notices)) is not None:
                    await session.parts.send(update)
    return "cancelled" if scope.cancelled_caught or not recorded else stop


async def _record_turn_end(session: Session, *, hurried: bool) -> tuple[str | None, bool]:
    """The workspace as the turn left it, into its checkpoint: a notice if that failed, and
    False if a cancel stopped it (``session/cancel`` ends the turn at once, even here).
    ``hurried``: the turn was cancelled already, so the record gets little time."""
    try:
        with anyio.CancelScope() as recording:
            session.turn_scope = recording
            return await session.parts.checkpoints.end_turn(hurried=hurried), True
    finally:
        session.turn_scope = None
    return "The end of this turn's checkpoint was not recorded: the turn was cancelled.", False


def _ticket(state: ServerState, raw: Any) -> tuple[Session | None, int]:
    """The prompt's session as it arrived (None: not open) and the cancels it had so far: a
    cancel, or a ``session/close``, that comes later ends this prompt with ``cancelled``."""
    session = state.sessions.get(str((as_object(raw) or {}).get("sessionId")))
    return session, session.cancellations if session is not None else 0


async def _wait_until_ready(state: ServerState, session: Session) -> None:
    """The first turn's tools include every MCP server that starts within its connect timeout,
    and its agent is built (the system prompt read in a worker thread); ``session/cancel``
    stops the wait at once."""
    if state.background is not None:  # a prompt that beat the reply's follow-up starts them
        session.parts.mcp.start(state.background)
    with anyio.CancelScope() as waiting:
        session.watch(waiting)
        await session.parts.mcp.ready()
        await session.ready()
    session.turn_scope = None


def _track(event: Event, unfinished: set[str]) -> None:
    if isinstance(event, ToolCallStarted):
        unfinished.add(event.call_id)
    elif isinstance(event, ToolCallUpdated) and event.status in ("completed", "failed"):
        unfinished.discard(event.call_id)


async def _tell_about_changed_instructions(state: ServerState, session: Session) -> None:
    """The prompt prefix is frozen for the session; say so when the project instructions change."""
    from agent_core.context.files import changed_files, fingerprint

    now = await anyio.to_thread.run_sync(fingerprint, session.setup.cwd)
    if session.instructions is None:
        session.instructions = now
        return
    changed = changed_files(session.instructions, now)
    session.instructions = now
    if changed:
        names = ", ".join(p.name for p in changed)
        notice = NoticeRaised(
            "info", f"{names} changed", "It applies from the next session, or now after /reload."
        )
        await _tell(state, session, notice)


async def _tell_about_unseen_images(
    state: ServerState, session: Session, parts: tuple[UserPart, ...]
) -> None:
    model = session.parts.choice.model
    if model.accepts_images or not any(isinstance(p, ImagePart) for p in parts):
        return
    about = f"{model.name} cannot see images; it is told one was attached. A model that can see "
    about += "them gets the image (/model)."
    await _tell(state, session, NoticeRaised("warning", "Image left out", about))


async def _tell(state: ServerState, session: Session, notice: NoticeRaised) -> None:
    notices = state.client.can("session", "notices")
    if (update := to_session_update(notice, notices=notices)) is not None:
        await session.parts.send(update)


def _title(session: Session, blocks: list[dict[str, Any]]) -> str | None:
    """The title its first prompt gives a session (its first line); None once it has one."""
    if session.titled:
        return None
    session.titled = True
    text = next((b["text"] for b in blocks if b.get("type") == "text" and b["text"].strip()), "")
    return " ".join(text.strip().splitlines()[0].split())[:TITLE_CHARS] if text else "Untitled"
