"""``session/prompt`` runs one agent turn and streams it; ``session/cancel`` stops it.

The handler validates the request and translates its content (the files it links to, as the
session reads them); ``Session.prompt`` does the rest.
"""

from __future__ import annotations

import uuid
from typing import Any

from acp_server.bridge.content import UnsupportedContent, from_prompt, linked_uris
from acp_server.handlers import params
from acp_server.handlers.auth import follow_credentials
from acp_server.handlers.commands import run_command
from acp_server.handlers.greeting import accepts_images
from acp_server.handlers.plain_params import prompt_by_schema, read_prompt
from acp_server.handlers.rewind import refusal, restore_mode
from acp_server.handlers.state import ServerState
from acp_server.jsonrpc.connection import Reply
from acp_server.jsonrpc.errors import RpcError
from acp_server.jsonrpc.values import as_object
from acp_server.loading import settle
from acp_server.rewind import RestoreMode, RewindError
from acp_server.session import CommandOutcome, Prompt, Session

MAX_MESSAGE_ID = 200


async def prompt(state: ServerState, raw: Any) -> Reply:
    """A turn, answered with its stop reason; after the process's first answer, what loading
    left is collected and the rest frozen (``loading.settle``), while the user reads."""
    given = _message_id(raw)
    reply = await _prompt(state, raw, given or str(uuid.uuid4()))
    result = reply if given else {"stopReason": reply["stopReason"]}
    return Reply(result, after=lambda: state.run_once("settle", settle))


async def edit_prompt(state: ServerState, raw: Any) -> dict[str, Any]:
    """``session/edit_prompt`` (ACP's draft rewind RFD): back to before the prompt
    ``messageId`` names (``_meta.heron.restore`` as for ``session/rewind``), then ``newContent``
    runs as the next prompt, streamed as any prompt is, in the one request."""
    request = params.as_object(raw)
    session = state.session(params.string(request, "sessionId"))
    target, restore = params.string(request, "messageId"), restore_mode(request)
    try:
        session.refuse_while_busy()
    except RewindError as exc:
        raise refusal(exc) from None
    as_prompt = {"sessionId": session.id, "prompt": request.get("newContent")}
    return await _prompt(state, as_prompt, str(uuid.uuid4()), (target, restore))


async def _prompt(
    state: ServerState, raw: Any, message_id: str, rewind: tuple[str, RestoreMode] | None = None
) -> dict[str, Any]:
    opened, ticket = _ticket(state, raw)  # before any await: a cancel or close sent after counts
    # What runs the turn (and validates an unusual prompt: pydantic) loads in a worker thread
    # the first time: an import here would stop the event loop, and a cancel with it.
    request = read_prompt(raw) or await state.by_schema(prompt_by_schema, raw)
    await state.run_once("turn machinery", state.warm_up)
    if opened is not None and state.sessions.get(request.session_id) is not opened:
        return {"stopReason": "cancelled"}  # closed while this prompt loaded its parts
    session = state.session(request.session_id)
    blocks = request.blocks
    read = await session.read_links(linked_uris(blocks))
    linked = {uri: found.text for uri, found in read.items()}
    # Images are taken when the model sees them, or when `initialize` said they could be sent
    # and the session has since switched to a model that does not: kept for a model that can,
    # they are left out of this one's requests (``models.base.visible``), and the user told.
    images = session.model.accepts_images or accepts_images(state.settings)
    try:
        parts = from_prompt(blocks, linked, images=images)
    except UnsupportedContent as exc:
        raise RpcError.invalid_params(str(exc)) from None
    problems = tuple(found.problem for found in read.values() if found.problem)
    session.start(state.background)  # a prompt that beat the reply's follow-up starts them
    try:
        stop = await session.prompt(
            Prompt(blocks, parts, message_id, problems), ticket, _Hooks(state), rewind
        )
    except RewindError as exc:
        raise refusal(exc) from None
    return {"stopReason": stop, "userMessageId": message_id}


async def cancel(state: ServerState, raw: Any) -> None:
    """Stop a session's turn, or a subagent's work (its parent's turn goes on)."""
    session_id = params.string(params.as_object(raw), "sessionId")
    if (parent := state.parent_of(session_id)) is not None:
        parent.stop_subagent(session_id)
        return
    state.session(session_id).cancel()


class _Hooks:
    """What a turn needs from the server: the credentials as they are now, and the slash
    commands."""

    def __init__(self, state: ServerState) -> None:
        self.state = state

    def refresh_model(self, session: Session) -> None:
        follow_credentials(self.state, session)  # a login or logout since the last prompt

    async def run_command(self, session: Session, text: str) -> CommandOutcome:
        return await run_command(self.state, session, text)


def _message_id(raw: Any) -> str:
    """The editor's id for the prompt (``messageId``, from ACP's message-id draft), or ""; an
    editor that names its prompts is answered the id (``userMessageId``)."""
    given = params.as_object(raw).get("messageId")
    if given is None:
        return ""
    if not isinstance(given, str) or not 0 < len(given) <= MAX_MESSAGE_ID:
        raise RpcError.invalid_params(
            f"'messageId' must be a string of 1 to {MAX_MESSAGE_ID} characters"
        )
    return given


def _ticket(state: ServerState, raw: Any) -> tuple[Session | None, int]:
    """The prompt's session as it arrived (None: not open) and the cancels it had so far: a
    cancel, or a ``session/close``, that comes later ends this prompt with ``cancelled``."""
    session = state.sessions.get(str((as_object(raw) or {}).get("sessionId")))
    return session, session.cancellations if session is not None else 0
