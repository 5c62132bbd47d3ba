"""``session/rewind`` in the shape of ACP's draft rewind RFD, under the unstable
``rewindSession`` capability: the conversation, the files or both go back to before a prompt.

``toMessageId`` names a prompt (it goes, with all that follows) or a reply (its turn stays).
``_meta.heron.restore`` says what goes back: ``conversation`` (the default, as the RFD has it),
``files`` or ``both``. The answer is the RFD's ``remainingMessageCount`` and ``lastMessageId``,
and what the restore did in ``_meta.heron.files``.
"""

from __future__ import annotations

from typing import Any

from acp_server.handlers import params
from acp_server.handlers.state import ServerState
from acp_server.jsonrpc.errors import RpcError
from acp_server.rewind import RESTORE_MODES, NoSuchMessage, RestoreMode, RewindError, Rewound

REWIND_REFUSED = -32001  # a rewind that cannot happen now; the message says why


async def rewind_session(state: ServerState, raw: Any) -> dict[str, Any]:
    request = params.as_object(raw)
    session = state.session(params.string(request, "sessionId"))
    target, restore = params.string(request, "toMessageId"), restore_mode(request)
    try:
        rewound = await session.rewind(target, restore)
    except RewindError as exc:
        raise refusal(exc) from None
    return rewind_reply(rewound)


def restore_mode(request: dict[str, Any]) -> RestoreMode:
    """``_meta.heron.restore``: what a rewind takes back (default: the conversation)."""
    chosen = params.heron_meta(request, "restore")
    if chosen is None:
        return "conversation"
    for mode in RESTORE_MODES:
        if chosen == mode:
            return mode
    listed = ", ".join(RESTORE_MODES)
    raise RpcError.invalid_params(f"'_meta.heron.restore' must be one of {listed}")


def refusal(exc: RewindError) -> RpcError:
    if isinstance(exc, NoSuchMessage):
        return RpcError.invalid_params(str(exc))
    return RpcError(REWIND_REFUSED, str(exc))


def rewind_reply(rewound: Rewound) -> dict[str, Any]:
    return {
        "remainingMessageCount": rewound.message_count,
        "lastMessageId": rewound.last_message_id,
        "_meta": {"heron": {"files": rewound.files}},
    }
