"""``initialize``, when the server answers it: the front door answers a first one that is well
formed before the server loads (``acp_server.front_door``); both answer with ``greet``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acp_server.handlers.greeting import greet
from acp_server.jsonrpc.connection import Reply

if TYPE_CHECKING:
    from acp_server.handlers.state import ServerState


async def initialize(state: ServerState, raw: Any) -> Reply:
    state.config.refresh()  # the model decides whether images are offered
    state.client, result = greet(raw, state.settings)
    return Reply(result, after=state.load_ahead)
