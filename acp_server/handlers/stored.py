"""Sessions after the fact: ``session/load`` (with replay), ``resume``, ``list``, ``close``,
``delete``. A session lives in memory while it is open and in the store always."""

from __future__ import annotations

import contextlib
import json
import uuid
from typing import Any

from acp_server.bridge.transcript import frames, last_usage
from acp_server.bridge.updates import from_usage_update, to_iso_time, to_session_update
from acp_server.handlers import params
from acp_server.handlers.auth import require_credentials
from acp_server.handlers.commands import announce_commands
from acp_server.handlers.session_setup import stored_setup
from acp_server.handlers.sessions import follow_up, session_reply
from acp_server.handlers.state import ServerState, unknown_session
from acp_server.jsonrpc.connection import Reply
from acp_server.jsonrpc.errors import INTERNAL_ERROR, RpcError
from acp_server.session import Session
from acp_server.session_parts import Restored, SessionSetup
from agent_core.errors import HeronError, SessionNotFound
from agent_core.sessions.store import SessionRecord, StoredSession

PAGE_SIZE = 50


async def load_session(state: ServerState, raw: Any) -> Reply:
    """Replay the whole conversation as updates, then its last usage, then answer; nothing
    follows the answer."""
    session, stored = await _open(state, raw)
    subagents = state.client.can("subagents")  # else its subagents are not replayed
    updates = frames(session.id, stored.transcript, subagents=subagents)
    await state.connection.notify_encoded("session/update", updates)
    await _show_interrupted(state, session, stored, replaying=True)
    await _show_usage(state, session, stored)
    await announce_commands(state, session)  # part of the replay: nothing may follow the answer
    await session.tell_about_history()
    return session_reply(state, session, announce=False, with_id=False)


async def adopt_loaded_session(
    state: ServerState, setup: SessionSetup, stored: StoredSession
) -> None:
    """A ``session/load`` the front door answered (``handlers.load_at_once``): the session is
    built and opened now, and what follows a session's answer starts in the background. If it
    cannot be built, every request naming it is answered with why."""
    try:
        session = state.open(_build(state, setup, stored, titled=stored.record.title is not None))
    except RpcError as exc:
        state.refused[setup.session_id] = exc
        return
    follow_up(state, session, session_reply(state, session, announce=False, with_id=False).after)


async def resume_session(state: ServerState, raw: Any) -> Reply:
    """Like load, without the replay: the editor already shows the conversation. Its usage
    line is sent again (the editor may have restarted since)."""
    session, stored = await _open(state, raw)
    await _show_interrupted(state, session, stored, replaying=False)
    await _show_usage(state, session, stored)
    return session_reply(state, session, announce=True, with_id=False)


async def fork_session(state: ServerState, raw: Any) -> Reply:
    """A new session that starts with a copy of another's conversation; the two then diverge."""
    request = params.as_object(raw)
    parent = await _load(state, params.string(request, "sessionId"))
    if (point := _fork_point(request)) is not None:  # Heron's: the conversation up to there
        # loaded here: the checkpoints behind a rewind cost a load ~15 ms it does not use
        from acp_server.handlers.rewind import refusal
        from acp_server.rewind import RewindError, fork_point

        try:
            parent = fork_point(parent, point)
        except RewindError as exc:
            raise refusal(exc) from None
    setup = stored_setup(str(uuid.uuid4()), request, parent.record.additional_directories)
    record = parent.record
    title = f"{record.title} (fork)" if record.title else None
    session = _build(state, setup, parent, titled=title is not None)
    await state.store.create(
        SessionRecord(
            setup.session_id,
            setup.cwd,
            setup.additional_directories,
            title,
            mode=record.mode,
            model=session.model_spec,
            thought_level=session.thought_level,
        )
    )
    transcript = [json.loads(item) for item in parent.transcript]
    await state.store.append(setup.session_id, parent.messages, transcript)
    await session.copy_checkpoints(record.session_id)
    return session_reply(state, state.open(session), announce=True, with_id=True)


def _fork_point(request: dict[str, Any]) -> str | None:
    """``_meta.heron.toMessageId``: the fork's conversation ends there, as a rewind to that
    message would leave it (``session/rewind``)."""
    point = params.heron_meta(request, "toMessageId")
    if point is not None and not isinstance(point, str):
        raise RpcError.invalid_params("'_meta.heron.toMessageId' must be a message id")
    return point


async def list_sessions(state: ServerState, raw: Any) -> dict[str, Any]:
    request = params.as_object(raw or {})
    cwd = (
        params.absolute(request["cwd"], "cwd").resolve() if request.get("cwd") is not None else None
    )
    cursor = request.get("cursor")
    if cursor is not None and not isinstance(cursor, str):
        raise RpcError.invalid_params("'cursor' must be a string from an earlier session/list")
    try:
        records, next_cursor = await state.store.list(cwd=cwd, cursor=cursor, limit=PAGE_SIZE)
    except ValueError as exc:
        raise RpcError.invalid_params(str(exc)) from None
    sessions: list[dict[str, Any]] = []
    for record in records:
        info: dict[str, Any] = {
            "sessionId": record.session_id,
            "cwd": str(record.cwd),
            "updatedAt": to_iso_time(record.updated_at),
        }
        if record.title:
            info["title"] = record.title
        if record.additional_directories:
            info["additionalDirectories"] = [str(p) for p in record.additional_directories]
        sessions.append(info)
    result: dict[str, Any] = {"sessions": sessions}
    if next_cursor:
        result["nextCursor"] = next_cursor
    return result


async def close_session(state: ServerState, raw: Any) -> dict[str, Any]:
    """Stop the running turn and the session's processes, and let it go from memory."""
    await state.close(state.session(params.string(params.as_object(raw), "sessionId")))
    return {}


async def delete_session(state: ServerState, raw: Any) -> dict[str, Any]:
    """Gone from memory and from the store; deleting twice is fine."""
    session_id = params.string(params.as_object(raw), "sessionId")
    if (session := state.sessions.get(session_id)) is not None:
        await state.close(session)
    await _delete_checkpoints(state, session_id)
    await state.store.delete(session_id)
    return {}


async def _delete_checkpoints(state: ServerState, session_id: str) -> None:
    """A deleted session's checkpoints go with it (what only they held goes at the next prune)."""
    from agent_core.checkpoints.session import CheckpointError, session_checkpoints

    try:
        record = (await state.store.load(session_id)).record
    except SessionNotFound:
        return
    settings = state.settings
    checkpoints = session_checkpoints(
        settings.checkpoints, settings.home, record.cwd, session_id, {}
    )
    if checkpoints.shadow.exists():
        with contextlib.suppress(CheckpointError):
            await checkpoints.delete_all()


async def _open(state: ServerState, raw: Any) -> tuple[Session, StoredSession]:
    request = params.as_object(raw)
    session_id = params.string(request, "sessionId")
    stored = await _load(state, session_id)
    live = state.sessions.get(session_id)
    if live is not None:  # still open in this process: show it, keep it
        return live, stored
    setup = stored_setup(session_id, request, stored.record.additional_directories)
    session = _build(state, setup, stored, titled=stored.record.title is not None)
    return state.open(session), stored


async def _show_interrupted(
    state: ServerState, session: Session, stored: StoredSession, *, replaying: bool
) -> None:
    """Tool calls a stopped Heron left running end as failed, in the editor and the stored
    transcript. A replay shows each whole; after a resume the editor already has the call."""
    from agent_core.loop.history import unanswered_at_end

    if not unanswered_at_end(stored.messages):  # a kill leaves its calls at the end
        return
    for event in (await session.ready()).interrupted_calls():
        update = to_session_update(event)
        if update is None:
            continue
        session.keep(update)  # stored with the session's next save
        if replaying or update["sessionUpdate"] == "tool_call_update":
            await session.tell(update)


async def _show_usage(state: ServerState, session: Session, stored: StoredSession) -> None:
    """The session's usage line as the editor last saw it: context used, cost so far. Nothing
    for a session that never had one."""
    if (usage := last_usage(stored.transcript)) is not None:
        await session.tell(usage)


async def _load(state: ServerState, session_id: str) -> StoredSession:
    try:
        return await state.store.load(session_id)
    except SessionNotFound:
        raise unknown_session(session_id) from None


def _build(
    state: ServerState, setup: SessionSetup, stored: StoredSession, *, titled: bool
) -> Session:
    require_credentials(state)
    record = stored.record
    usage = from_usage_update(last_usage(stored.transcript))  # the meter goes on from it
    restored = Restored(
        stored.messages, record.mode, record.model, record.thought_level, usage, titled
    )
    try:
        return state.build_session(setup, state.client, restored)
    except HeronError as exc:
        raise RpcError(INTERNAL_ERROR, f"Cannot open the session: {exc}") from exc
