"""``session/new``: validate the workspace, build the session's agent, answer fast."""

from __future__ import annotations

import uuid
from typing import Any

from acp_server.bridge.modes import to_config_options, to_modes
from acp_server.handlers import params
from acp_server.handlers.auth import require_credentials
from acp_server.handlers.commands import announce_commands
from acp_server.handlers.model_lists import refresh_model_lists
from acp_server.handlers.state import ServerState
from acp_server.jsonrpc.connection import Reply
from acp_server.jsonrpc.errors import INTERNAL_ERROR, RpcError
from acp_server.session import Session
from acp_server.session_parts import Restored, SessionSetup
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
        session = state.build_session(setup, state.client, Restored())
    except HeronError as exc:
        raise RpcError(INTERNAL_ERROR, f"Cannot start a session: {exc}") from exc
    from agent_core.sessions.store import SessionRecord  # loaded in the background by now

    record = SessionRecord(
        setup.session_id,
        setup.cwd,
        setup.additional_directories,
        mode=session.mode,
        model=session.model_spec,
        thought_level=session.thought_level,
    )
    await state.store.create(record)
    return session_reply(state, state.open(session), announce=True, with_id=True)


def session_reply(state: ServerState, session: Session, *, announce: bool, with_id: bool) -> Reply:
    """The answer that opens a session (new, load, resume, fork): its modes and options; then,
    once the answer is out, its MCP servers start, its commands are announced and what the
    store has to tell it is told (``announce``), and what its first prompt will need is
    loaded and built."""
    options = state.options(session)

    async def after() -> None:
        session.start(state.background)
        if state.background is not None:
            state.background.start_soon(refresh_model_lists, state)  # the picker, later
        if announce:
            await announce_commands(state, session)
            await session.tell_about_history()
        await session.prepare()
        await state.run_once("wire models", state.warm_up)
        await session.warm_up()  # built now, so that a prompt finds it ready

    result: dict[str, Any] = {
        "modes": to_modes(options),
        "configOptions": to_config_options(options),
    }
    if with_id:
        result = {"sessionId": session.id, **result}
    return Reply(result, after=after)
