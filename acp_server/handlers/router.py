"""The ACP method table: which handler answers which method. Explicit, no registration magic."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from acp_server.handlers import auth, lifecycle, sessions
from acp_server.handlers.state import ServerState
from acp_server.jsonrpc.errors import INTERNAL_ERROR, RpcError
from acp_server.jsonrpc.values import as_object
from agent_core.errors import StorageError

log = logging.getLogger("heron.acp")

RequestHandler = Callable[[ServerState, Any], Awaitable[Any]]
NotificationHandler = Callable[[ServerState, Any], Awaitable[None]]


def deferred(module: str, name: str) -> Callable[[ServerState, Any], Awaitable[Any]]:
    """A handler whose module loads on first use, keeping it off the ``initialize`` path."""

    async def handle(state: ServerState, params: Any) -> Any:
        return await getattr(importlib.import_module(module), name)(state, params)

    return handle


# `initialize` and `session/new` are answered from the modules imported at start; the turn
# machinery loads in the background once `initialize` is answered (`ServerState.preload`).
PROMPT = "acp_server.handlers.prompt"
MODES = "acp_server.handlers.modes"
STORED = "acp_server.handlers.stored"
REWIND = "acp_server.handlers.rewind"
REQUESTS: dict[str, RequestHandler] = {
    "initialize": lifecycle.initialize,
    "authenticate": auth.authenticate,
    "logout": auth.logout,
    "session/new": sessions.new_session,
    "session/prompt": deferred(PROMPT, "prompt"),
    "session/set_mode": deferred(MODES, "set_mode"),
    "session/set_config_option": deferred(MODES, "set_config_option"),
    "session/load": deferred(STORED, "load_session"),
    "session/resume": deferred(STORED, "resume_session"),
    "session/list": deferred(STORED, "list_sessions"),
    "session/close": deferred(STORED, "close_session"),
    "session/delete": deferred(STORED, "delete_session"),
    "session/fork": deferred(STORED, "fork_session"),  # unstable in ACP v1
    "session/rewind": deferred(REWIND, "rewind_session"),  # the draft rewind RFD
    "session/edit_prompt": deferred(PROMPT, "edit_prompt"),  # the draft rewind RFD
}
NOTIFICATIONS: dict[str, NotificationHandler] = {
    "session/cancel": deferred(PROMPT, "cancel"),
}


class AcpRouter:
    """The connection's ``Dispatcher``: routes by method name; unknown methods get -32601."""

    def __init__(self, state: ServerState) -> None:
        self.state = state

    async def handle_request(self, method: str, params: Any) -> Any:
        handler = REQUESTS.get(method)
        if handler is None:
            raise RpcError.method_not_found(method)
        try:
            return await handler(self.state, params)
        except StorageError as exc:  # the history cannot be read or changed: say why, briefly
            log.warning("%s: %s", method, exc)
            raise RpcError(INTERNAL_ERROR, f"The session history is unavailable: {exc}") from None

    async def handle_notification(self, method: str, params: Any) -> None:
        handler = NOTIFICATIONS.get(method)
        if handler is None:
            log.debug("ignored notification %s", method)
            return
        await handler(self.state, params)

    def cancel_request(self, method: str, params: Any) -> bool:
        """A cancelled prompt ends its turn and answers ``cancelled``, like ``session/cancel``."""
        session_id = (as_object(params) or {}).get("sessionId")
        session = self.state.sessions.get(str(session_id)) if method == "session/prompt" else None
        if session is None:
            return False
        session.cancel()
        return True

    async def input_closed(self) -> None:
        """The editor is gone: stop every turn and every process the sessions started."""
        for session in self.state.sessions.values():
            session.cancel()
        async with anyio.create_task_group() as closing:
            for session in self.state.sessions.values():
                closing.start_soon(session.close)
