"""What a ``session/new`` or ``session/load`` asks for, and the answer that opens a session
before any of it is built.

Light on purpose: the front door uses it to answer a ``session/new`` or ``session/load`` sent
at once after ``initialize``, before the server has loaded (``front_door``); the handlers use
it for every other (``handlers.sessions``, ``handlers.stored``). A session's options follow
from the settings and its stored record alone: the mode, the model and thought level (the
stored ones, else the configured defaults), and the machine's sandbox.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_server.bridge.modes import SessionOptions, session_options, to_config_options, to_modes
from acp_server.handlers import params
from acp_server.session_parts import SessionSetup
from agent_core.config import Settings

if TYPE_CHECKING:
    from agent_core.sessions.store import SessionRecord


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


def stored_setup(
    session_id: str, request: dict[str, Any], stored: tuple[Path, ...]
) -> SessionSetup:
    """Where a stored session runs now: the request's directories, else the ``stored`` ones;
    raises ``RpcError`` for bad params."""
    extra = params.optional_list(request, "additionalDirectories")
    directories = tuple(params.directory(d, "additionalDirectories entry") for d in extra)
    return SessionSetup(
        session_id,
        params.directory(request.get("cwd"), "cwd"),
        directories or stored,
        params.mcp_servers(request),
        params.system_prompt(request),
    )


def first_thought_level(settings: Settings) -> str:
    return settings.reasoning_effort or "default"


def opening_options(
    settings: Settings, setup: SessionSetup, record: SessionRecord | None = None
) -> SessionOptions:
    """A session's options as its built session will report them before any model list is
    read: a new one's (``record`` None) or a stored one's (the sandbox probe runs once per
    process: ``detect``). Raises ``HeronError`` when its model cannot be made, as building the
    session would."""
    from agent_core.models.registry import create_model
    from agent_core.safety.sandbox.confinement import Confinement
    from agent_core.safety.sandbox.detect import detect

    mode = (record and record.mode) or settings.default_mode
    model = (record and record.model) or settings.model or ""
    thought = (record and record.thought_level) or first_thought_level(settings)
    create_model(model, settings)  # made again with the session; cheap, no SDK loads

    if container := settings.execution.for_workspace(setup.cwd).describe():
        return session_options(mode, model, thought, settings, container)
    found = detect(network=settings.sandbox.network == "allow")
    sandbox = Confinement(
        found, settings.sandbox, setup.roots, home=Path.home(), heron_home=settings.home
    )
    return session_options(mode, model, thought, settings, sandbox.describe())


def opening_result(session_id: str | None, options: SessionOptions) -> dict[str, Any]:
    """The result that opens a session (``session_id`` None: load and resume do not repeat it)."""
    result: dict[str, Any] = {
        "modes": to_modes(options),
        "configOptions": to_config_options(options),
    }
    return result if session_id is None else {"sessionId": session_id, **result}
