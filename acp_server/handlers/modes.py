"""``session/set_mode`` and ``session/set_config_option``: the approval mode, two ways."""

from __future__ import annotations

from typing import Any

from acp_server.bridge.modes import (
    MODE_CONFIG_ID,
    MODEL_CONFIG_ID,
    THOUGHT_CONFIG_ID,
    THOUGHT_LEVELS,
    to_config_options,
)
from acp_server.handlers.plain_params import (
    mode_by_schema,
    option_by_schema,
    read_mode,
    read_option,
)
from acp_server.handlers.state import ServerState
from acp_server.jsonrpc.errors import RpcError
from acp_server.session import Session
from agent_core.errors import HeronError
from agent_core.modes import MODE_NAMES, Mode


async def set_mode(state: ServerState, raw: Any) -> dict[str, Any]:
    request = read_mode(raw) or await state.by_schema(mode_by_schema, raw)
    session = state.session(request.session_id)
    await session.set_mode(mode_value(request.mode_id))
    return {}


async def set_config_option(state: ServerState, raw: Any) -> dict[str, Any]:
    request = read_option(raw) or await state.by_schema(option_by_schema, raw)
    session = state.session(request.session_id)
    value = request.value
    if not isinstance(value, str):
        raise RpcError.invalid_params(f"{request.config_id!r} takes a value id, not a boolean")
    if request.config_id == MODE_CONFIG_ID:
        await session.set_mode(mode_value(value))
    elif request.config_id == MODEL_CONFIG_ID:
        await switch_model(state, session, value)
    elif (
        request.config_id == THOUGHT_CONFIG_ID and state.options(session).thought_level is not None
    ):
        if value not in THOUGHT_LEVELS:
            raise RpcError.invalid_params(
                f"unknown thought level {value!r}; levels: {', '.join(THOUGHT_LEVELS)}"
            )
        session.set_thought_level(value)
        await state.store.update(session.id, thought_level=value)
    else:
        known = ", ".join(o["id"] for o in to_config_options(state.options(session)))
        raise RpcError.invalid_params(
            f"unknown config option {request.config_id!r}; options: {known}"
        )
    return {"configOptions": to_config_options(state.options(session))}


async def switch_model(state: ServerState, session: Session, spec: str) -> None:
    from agent_core.models.registry import create_model

    state.config.refresh()  # a key saved since the session opened
    try:
        model = create_model(spec, state.settings)
    except HeronError as exc:
        raise RpcError.invalid_params(f"cannot use {spec!r}: {exc}") from exc
    session.switch_model(spec, model, state.settings.credentials(spec))
    if state.background is not None:  # warm, and connected, when the user next sends
        state.background.start_soon(session.warm_up_model)
    await state.store.update(session.id, model=spec)


def mode_value(value: str) -> Mode:
    if value not in MODE_NAMES:
        raise RpcError.invalid_params(f"unknown mode {value!r}; modes: {', '.join(MODE_NAMES)}")
    return value
