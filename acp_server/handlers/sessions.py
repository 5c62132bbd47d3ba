"""``session/new``: validate the workspace, build the session's parts, answer fast; and the
``session/new`` the front door answered, built once the server runs (``adopt_new_session``)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from acp_server.handlers import params
from acp_server.handlers.auth import require_credentials
from acp_server.handlers.commands import announce_commands
from acp_server.handlers.live import live_workspaces
from acp_server.handlers.model_lists import refresh_model_lists
from acp_server.handlers.session_setup import new_setup, opening_result
from acp_server.handlers.state import ServerState
from acp_server.jsonrpc.connection import Reply
from acp_server.jsonrpc.errors import INTERNAL_ERROR, RpcError
from acp_server.jsonrpc.transport import TransportClosed
from acp_server.loading import collect_young
from acp_server.session import Session
from acp_server.session_parts import Restored, SessionSetup
from agent_core.errors import HeronError

log = logging.getLogger("heron.acp")


async def new_session(state: ServerState, raw: Any) -> Reply:
    setup = new_setup(params.as_object(raw))
    require_credentials(state)
    session = await _open_new(state, setup)
    return session_reply(state, session, announce=True, with_id=True)


async def adopt_new_session(state: ServerState, setup: SessionSetup) -> None:
    """A ``session/new`` the front door answered (``front_door``): the session is built, stored
    and opened now, and what follows a session's answer starts in the background
    (``session_reply``). If it cannot be built, every request naming it is answered with why."""
    try:
        session = await _open_new(state, setup)
    except RpcError as exc:
        state.refused[setup.session_id] = exc
        return
    follow_up(state, session, session_reply(state, session, announce=True, with_id=True).after)


def follow_up(state: ServerState, session: Session, after: Callable[[], Awaitable[None]]) -> None:
    """Run ``after`` in the background, as the connection runs a reply's follow-up, for a
    session the front door answered: its failure is logged, never fatal, and an editor gone
    meanwhile (the input ended at once) is no failure at all."""

    async def follow() -> None:
        try:
            await after()
        except (TransportClosed, anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        except Exception:
            log.exception("the follow-up of session %s failed", session.id)

    if state.background is not None:
        state.background.start_soon(follow)


async def _open_new(state: ServerState, setup: SessionSetup) -> Session:
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
    return state.open(session)


def session_reply(state: ServerState, session: Session, *, announce: bool, with_id: bool) -> Reply:
    """The answer that opens a session (new, load, resume, fork): its modes and options; then,
    once the answer is out, its MCP servers start, its commands are announced and what the
    store has to tell it is told (``announce``), and what its first prompt will need is
    loaded, built and connected."""
    options = state.options(session)

    async def after() -> None:
        session.start(state.background)
        if announce:
            await announce_commands(state, session)
            await session.tell_about_history()
        await session.prepare()
        await state.run_once("turn machinery", state.warm_up)
        await session.warm_up(state.background)  # built now, so that a prompt finds it ready
        # What no model request needs waits for a prompt sent meanwhile: they would share one
        # interpreter.
        await session.idle()
        if state.background is not None:
            state.background.start_soon(refresh_model_lists, state)  # the picker
        await live_workspaces(state).follow(session)
        collect_young()  # what all this left, collected before the user's first prompt

    return Reply(opening_result(session.id if with_id else None, options), after=after)
