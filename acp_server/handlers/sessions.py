"""``session/new``: validate the workspace, build the session's agent, answer fast."""

from __future__ import annotations

import uuid
from typing import Any

import anyio

from acp_server.bridge.modes import to_config_options, to_modes
from acp_server.handlers import params
from acp_server.handlers.auth import require_credentials
from acp_server.handlers.commands import announce_commands
from acp_server.handlers.model_lists import refresh_model_lists
from acp_server.handlers.state import Restored, ServerState, Session, SessionSetup
from acp_server.jsonrpc.connection import Reply
from acp_server.jsonrpc.errors import INTERNAL_ERROR, RpcError
from agent_core.errors import HeronError


async def new_session(state: ServerState, raw: Any) -> Reply:
    request = params.as_object(raw)
    cwd = params.directory(request.get("cwd"), "cwd")
    extra = params.optional_list(request, "additionalDirectories")
    setup = SessionSetup(
        session_id=str(uuid.uuid4()),
        cwd=cwd,
        additional_directories=tuple(
            params.directory(d, "additionalDirectories entry") for d in extra
        ),
        mcp_servers=params.mcp_servers(request),
        system_prompt=params.system_prompt(request),
    )
    require_credentials(state)
    try:
        parts = state.build_session(setup, state.client, Restored())
    except HeronError as exc:
        raise RpcError(INTERNAL_ERROR, f"Cannot start a session: {exc}") from exc
    from agent_core.sessions.store import SessionRecord  # loaded in the background by now

    choice = parts.choice
    record = SessionRecord(
        setup.session_id,
        setup.cwd,
        setup.additional_directories,
        mode=parts.permissions.mode,
        model=choice.spec,
        thought_level=choice.thought_level,
    )
    await state.store.create(record)
    session = state.sessions[setup.session_id] = Session(setup, parts)

    return session_reply(state, session, announce=True, with_id=True)


def session_reply(state: ServerState, session: Session, *, announce: bool, with_id: bool) -> Reply:
    """The answer that opens a session (new, load, resume, fork): its modes and options; then,
    once the answer is out, its MCP servers start, its commands are announced and what the
    store has to tell it is told (``announce``), and what its first prompt will need is
    loaded and built."""
    options, model = state.options(session), session.parts.choice.model

    async def after() -> None:
        if state.background is not None:
            session.parts.mcp.start(state.background)
            state.background.start_soon(refresh_model_lists, state)  # the picker, later
        if announce:
            await announce_commands(state, session)
            await tell_about_history(state, session)
        await anyio.to_thread.run_sync(session.parts.prepare)
        await state.run_once("wire models", state.warm_up)
        await anyio.to_thread.run_sync(model.warm_up)  # the SDK, once; this model's client
        await session.parts.mcp.ready()  # the agent's tools include the servers'
        await session.ready()  # built now, so that a prompt finds it ready

    result: dict[str, Any] = {
        "modes": to_modes(options),
        "configOptions": to_config_options(options),
    }
    if with_id:
        result = {"sessionId": session.id, **result}
    return Reply(result, after=after)


async def tell_about_history(state: ServerState, session: Session) -> None:
    """What the session's user has not yet heard about the session store: an unreadable
    history moved aside, this session not being saved (``ResilientStore.notices``)."""
    notices = state.store.notices(session.id)
    if not notices:
        return
    from acp_server.bridge.updates import to_session_update

    shown = state.client.can("session", "notices")
    for notice in notices:
        if (update := to_session_update(notice, notices=shown)) is not None:
            await session.parts.send(update)
