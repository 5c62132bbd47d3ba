"""What a ``session/new`` asks for, and the answer that opens a session before any of it is built.

Light on purpose: the front door uses it to answer a ``session/new`` sent at once after
``initialize``, before the server has loaded (``front_door``); the handler uses it for every
other (``handlers.sessions``). A new session's options follow from the settings alone: the
default mode, the configured model and thought level, and the machine's sandbox.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from acp_server.bridge.modes import SessionOptions, session_options, to_config_options, to_modes
from acp_server.handlers import params
from acp_server.session_parts import SessionSetup
from agent_core.config import Settings


def new_setup(request: dict[str, Any]) -> SessionSetup:
    """A new session's setup from its request (a fresh id); raises ``RpcError`` for bad params."""
    extra = params.optional_list(request, "additionalDirectories")
    return SessionSetup(
        session_id=str(uuid.uuid4()),
        cwd=params.directory(request.get("cwd"), "cwd"),
        additional_directories=tuple(
            params.directory(d, "additionalDirectories entry") for d in extra
        ),
        mcp_servers=params.mcp_servers(request),
        system_prompt=params.system_prompt(request),
    )


def first_thought_level(settings: Settings) -> str:
    return settings.reasoning_effort or "default"


def fresh_options(settings: Settings, setup: SessionSetup) -> SessionOptions:
    """A new session's options, as its built session will report them before any model list
    is read (the sandbox probe runs once per process: ``detect``). Raises ``HeronError`` when
    its model cannot be made, as building the session would."""
    from agent_core.models.registry import create_model
    from agent_core.safety.sandbox.confinement import Confinement
    from agent_core.safety.sandbox.detect import detect

    create_model(settings.model, settings)  # made again with the session; cheap, no SDK loads

    found = detect(network=settings.sandbox.network == "allow")
    sandbox = Confinement(
        found, settings.sandbox, setup.roots, home=Path.home(), heron_home=settings.home
    )
    model = settings.model or ""
    thought = first_thought_level(settings)
    return session_options(settings.default_mode, model, thought, settings, sandbox.describe())


def opening_result(session_id: str | None, options: SessionOptions) -> dict[str, Any]:
    """The result that opens a session (``session_id`` None: load and resume do not repeat it)."""
    result: dict[str, Any] = {
        "modes": to_modes(options),
        "configOptions": to_config_options(options),
    }
    return result if session_id is None else {"sessionId": session_id, **result}
