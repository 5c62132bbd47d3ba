"""A ``session/load`` sent the moment ``initialize`` is answered, answered by the front door from
the session store's file alone, before the server has loaded.

An editor that reopens the last thread at start sends ``session/load`` at once, and the
server's load (the event loop, the router, a session built whole) would hold up the replay the
user is looking at. What a load sends before its answer needs none of it: the stored
transcript's updates, the last usage line, the commands on disk, and the session's options.
So the front door sends those and the answer, and the server builds the session before it
reads another line (``handlers.stored.adopt_loaded_session``); nothing is sent for it after
the answer, as a load requires.

Only a load that can be answered whole is answered here: valid params, a file at the current
schema that holds the session (``sessions.rows.read_at_once``), no tool call a stopped Heron
left running (the server shows those failed, with the agent), no command template left out
(the server names each in a notice), a model that can be made. Anything else is the server's,
which answers as it answers any load. ``handlers.stored.load_session`` sends the same updates
in the same order; a test holds the two to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from acp_server.bridge.transcript import frames, last_usage
from acp_server.handlers.client import ClientInfo
from acp_server.handlers.command_list import commands_on_disk, to_commands_update
from acp_server.handlers.session_setup import opening_options, opening_result, stored_setup
from acp_server.jsonrpc.errors import RpcError
from acp_server.jsonrpc.framing import encode
from acp_server.session_parts import SessionSetup
from agent_core.config import Settings
from agent_core.errors import HeronError

if TYPE_CHECKING:
    from agent_core.sessions.store import StoredSession


class Loaded(NamedTuple):
    """A load answered from the store: the session to build, and what was sent for it."""

    setup: SessionSetup
    stored: StoredSession
    updates: list[bytes]  # the ``session/update`` params sent before the answer, in order
    result: dict[str, Any]


def answer_load(request: dict[str, Any], settings: Settings, client: ClientInfo) -> Loaded | None:
    """What a ``session/load`` with these params sends and answers; None leaves it to the
    server. Blocking: reads the store's file, the workspace's templates and skills."""
    from agent_core.loop.history import unanswered_at_end
    from agent_core.sessions.rows import read_at_once

    session_id = request.get("sessionId")
    if not isinstance(session_id, str) or not settings.has_credentials():
        return None
    stored = read_at_once(settings.sessions_db, session_id)
    if stored is None or unanswered_at_end(stored.messages):
        return None
    try:
        setup = stored_setup(session_id, request, stored.record.additional_directories)
        options = opening_options(settings, setup, stored.record)
    except (RpcError, HeronError):
        return None
    _, found = commands_on_disk(settings, setup.cwd)
    if found.left_out:
        return None
    updates = frames(session_id, stored.transcript, subagents=client.can("subagents"))
    if (usage := last_usage(stored.transcript)) is not None:
        updates.append(update_params(session_id, usage))
    updates.append(update_params(session_id, to_commands_update(found.commands)))
    return Loaded(setup, stored, updates, opening_result(None, options))


def update_params(session_id: str, update: dict[str, Any]) -> bytes:
    """``session/update`` params, encoded as ``Session.tell`` sends them."""
    return encode({"sessionId": session_id, "update": update})
