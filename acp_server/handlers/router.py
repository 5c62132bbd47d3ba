"""The ACP method table: which handler answers which method. Explicit, no registration magic."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from acp_server.handlers import lifecycle, prompt, sessions
from acp_server.handlers.state import ServerState
from acp_server.jsonrpc.errors import RpcError

log = logging.getLogger("heron.acp")

RequestHandler = Callable[[ServerState, Any], Awaitable[Any]]
NotificationHandler = Callable[[ServerState, Any], Awaitable[None]]

REQUESTS: dict[str, RequestHandler] = {
    "initialize": lifecycle.initialize,
    "authenticate": lifecycle.authenticate,
    "session/new": sessions.new_session,
    "session/prompt": prompt.prompt,
}
NOTIFICATIONS: dict[str, NotificationHandler] = {
    "session/cancel": prompt.cancel,
}


class AcpRouter:
    """The connection's ``Dispatcher``: routes by method name; unknown methods get -32601."""

    def __init__(self, state: ServerState) -> None:
        self.state = state

    async def handle_request(self, method: str, params: Any) -> Any:
        handler = REQUESTS.get(method)
        if handler is None:
            raise RpcError.method_not_found(method)
        return await handler(self.state, params)

    async def handle_notification(self, method: str, params: Any) -> None:
        handler = NOTIFICATIONS.get(method)
        if handler is None:
            log.debug("ignored notification %s", method)
            return
        await handler(self.state, params)

    def cancel_request(self, method: str, params: Any) -> bool:
        """A cancelled prompt ends its turn and answers ``cancelled``, as ``session/cancel`` does."""
        if method != "session/prompt" or not isinstance(params, dict):
            return False
        session = self.state.sessions.get(params.get("sessionId"))  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        if session is None:
            return False
        session.cancel()
        return True

    async def input_closed(self) -> None:
        for session in self.state.sessions.values():
            session.cancel()
