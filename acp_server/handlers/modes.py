"""``session/set_mode`` and ``session/set_config_option``: the approval mode, two ways."""

from __future__ import annotations

from typing import Any

from acp_server.bridge.modes import MODE_CONFIG_ID, to_config_options
from acp_server.handlers import wire
from acp_server.handlers.state import ServerState
from acp_server.jsonrpc.errors import RpcError
from agent_core.modes import MODE_NAMES, Mode


async def set_mode(state: ServerState, raw: Any) -> dict[str, Any]:
    request = wire.set_mode_request(raw)
    session = state.session(request.session_id)
    await session.parts.permissions.set_mode(_mode(request.mode_id))
    return {}


async def set_config_option(state: ServerState, raw: Any) -> dict[str, Any]:
    request = wire.set_config_option_request(raw)
    session = state.session(request.session_id)
    if request.config_id != MODE_CONFIG_ID:
        raise RpcError.invalid_params(
            f"unknown config option {request.config_id!r}; options: {MODE_CONFIG_ID!r}"
        )
    if not isinstance(request.value, str):
        raise RpcError.invalid_params(f"{MODE_CONFIG_ID!r} takes one of {', '.join(MODE_NAMES)}")
    await session.parts.permissions.set_mode(_mode(request.value))
    return {"configOptions": to_config_options(session.parts.permissions.mode)}


def _mode(value: str) -> Mode:
    if value not in MODE_NAMES:
        raise RpcError.invalid_params(f"unknown mode {value!r}; modes: {', '.join(MODE_NAMES)}")
    return value
