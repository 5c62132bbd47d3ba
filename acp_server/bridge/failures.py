"""How a turn's failure reaches the editor: one JSON-RPC error whose message is one line that
says what happened and what to do, with the kind of failure in ``data`` for clients that act on
it. A rejected key answers ACP's ``auth_required``, so an editor offers its sign-in."""

from __future__ import annotations

from acp_server.jsonrpc.errors import AUTH_REQUIRED, INTERNAL_ERROR, RpcError
from agent_core.errors import (
    AuthenticationFailed,
    BadRequest,
    BillingProblem,
    ContextOverflow,
    HeronError,
    ModelConfigError,
    ModelNotFound,
    ModelUnavailable,
    PermissionDenied,
    StreamInterrupted,
)

REASONS: tuple[tuple[type[HeronError], str], ...] = (  # most specific first
    (AuthenticationFailed, "authentication"),
    (BillingProblem, "billing"),
    (PermissionDenied, "permission"),
    (ModelNotFound, "unknown_model"),
    (ModelConfigError, "configuration"),
    (ContextOverflow, "context_overflow"),
    (StreamInterrupted, "interrupted"),
    (BadRequest, "bad_request"),
)


def to_rpc_error(error: HeronError) -> RpcError:
    if isinstance(error, ModelUnavailable):
        reason = error.fault
    else:
        reason = next((r for kind, r in REASONS if isinstance(error, kind)), "error")
    code = AUTH_REQUIRED if isinstance(error, AuthenticationFailed) else INTERNAL_ERROR
    return RpcError(code, str(error), {"reason": reason})
