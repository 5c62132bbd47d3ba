"""Provider failures, whatever the SDK: what went wrong (``classify``, a pure function over the
HTTP status, the error body and the exception's type name) and the core error that says it.

The classes and what Heron does about each (``resilient.py`` retries and falls back; the loop
compacts; anything else ends the turn with the error's one-line message):

    class             examples                                         action
    authentication    401; Anthropic authentication_error              stop: which key to fix
    permission        403; OpenAI unsupported_country                  fall back, else stop
    billing           402; OpenAI 429 insufficient_quota; "credit"     stop: where to pay
    rate_limit        429                                              retry (Retry-After)
    overloaded        529, 503; Anthropic overloaded_error             retry, then fall back
    server_error      500, 502, 504, 5xx                               retry, then fall back
    timeout           408, the SDK's timeout error                     retry, then fall back
    connection        no answer at all (refused, reset, DNS)           retry, then fall back
    context_overflow  400 "prompt is too long", context_length_...     compact, then once more
    unknown_model     404; model_not_found; "model ... does not exist"  fall back, else stop
    bad_request       any other 4xx                                    stop
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Literal, cast

from agent_core.errors import (
    AuthenticationFailed,
    BadRequest,
    BillingProblem,
    ContextOverflow,
    ModelError,
    ModelNotFound,
    ModelUnavailable,
    PermissionDenied,
    StreamInterrupted,
)

Fault = Literal[
    "authentication",
    "permission",
    "billing",
    "rate_limit",
    "overloaded",
    "server_error",
    "timeout",
    "connection",
    "context_overflow",
    "unknown_model",
    "bad_request",
]
TRANSIENT: frozenset[Fault] = frozenset(
    {"rate_limit", "overloaded", "server_error", "timeout", "connection"}
)
RETRYABLE_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
# Error codes and types in the bodies (Anthropic ``error.type``, OpenAI ``error.code``/``type``).
CODES: dict[str, Fault] = {
    "authentication_error": "authentication",
    "invalid_api_key": "authentication",
    "incorrect_api_key": "authentication",
    "permission_error": "permission",
    "permission_denied": "permission",
    "unsupported_country_region_territory": "permission",
    "billing_error": "billing",
    "insufficient_quota": "billing",
    "billing_hard_limit_reached": "billing",
    "billing_not_active": "billing",
    "rate_limit_error": "rate_limit",
    "rate_limit_exceeded": "rate_limit",
    "overloaded_error": "overloaded",
    "engine_overloaded": "overloaded",
    "server_error": "server_error",
    "api_error": "server_error",
    "timeout_error": "timeout",
    "context_length_exceeded": "context_overflow",
    "string_above_max_length": "context_overflow",
    "model_not_found": "unknown_model",
    "not_found_error": "unknown_model",
}
STATUSES: dict[int, Fault] = {
    401: "authentication",
    402: "billing",
    403: "permission",
    404: "unknown_model",
    408: "timeout",
    413: "context_overflow",
    429: "rate_limit",
    503: "overloaded",
    504: "timeout",
    529: "overloaded",
}
OVERFLOW_HINTS = (
    "prompt is too long",
    "context length",
    "context_length_exceeded",
    "context window",
    "maximum context",
    "too many tokens",
    "input is too long",
    "exceed context limit",
    "reduce the length",
)
BILLING_HINTS = (
    "credit balance",
    "insufficient balance",
    "insufficient credits",
    "current quota",
    "billing",
    "payment required",
)
UNKNOWN_MODEL_HINTS = ("not found", "does not exist", "unknown model", "no such model")
GENERIC_CODES = frozenset({"api_error", "server_error"})  # the status says more than these


def classify(status: int | None, body: object, exception: str = "") -> Fault:
    """What kind of failure an error answer (or, with ``status`` None, no answer) is.

    ``body`` is the decoded error body (or its message), ``exception`` the SDK exception's type
    name. A specific code in the body wins over the status: OpenAI answers 429 for an exhausted
    quota, Anthropic 400 for a spent credit balance, and proxies put anything in front of both."""
    code, message = _code(body), error_message(body, "").lower()
    if code in CODES and code not in GENERIC_CODES:
        return CODES[code]
    if status == 429:
        return "billing" if _says(message, BILLING_HINTS) else "rate_limit"
    if (status is None or 400 <= status < 500) and _says(message, OVERFLOW_HINTS):
        return "context_overflow"
    if status is not None and 400 <= status < 500 and _says(message, BILLING_HINTS):
        return "billing"
    if status is None:
        if code in GENERIC_CODES:
            return "server_error"
        return "timeout" if "timeout" in exception.lower() else "connection"
    if status in STATUSES:
        return STATUSES[status]
    if status >= 500 or status in RETRYABLE_STATUSES or code in GENERIC_CODES:
        return "server_error"
    if "model" in message and _says(message, UNKNOWN_MODEL_HINTS):
        return "unknown_model"
    return "bad_request"


def _says(message: str, hints: tuple[str, ...]) -> bool:
    return any(hint in message for hint in hints)


def to_error(
    fault: Fault,
    provider: str,
    model: str,
    message: str,
    *,
    status: int | None = None,
    retry_after: float | None = None,
    key: str = "",
) -> ModelError:
    """The core error for ``fault``, its message one line that says what to do.

    ``provider`` names the provider to the user ("Anthropic"), ``key`` where its key comes from
    (``ANTHROPIC_API_KEY``)."""
    said = f"{provider} answered {status}" if status else f"no answer from {provider}"
    detail = _one_line(message)
    said += f": {detail}" if detail else ""
    key_fix = f"set {key} or run `heron login`" if key else "check its key, or run `heron login`"
    who = provider[:1].upper() + provider[1:]  # at the start of a sentence
    match fault:
        case "authentication":
            answer = f"{status}: {detail}" if detail else f"{status}"
            return AuthenticationFailed(
                f"{who} rejected the API key ({answer}): {key_fix}, then try again."
            )
        case "billing":
            return BillingProblem(
                f"{who} refused the request for billing ({detail or status}): add credit or "
                f"raise the quota in your {provider} account, or switch model (/model)."
            )
        case "permission":
            return PermissionDenied(
                f"{who} does not let this key use {model} ({said}); use another model "
                "(/model) or a key with access to it."
            )
        case "unknown_model":
            return ModelNotFound(
                f"{who} has no model {model!r} ({said}); pick another with /model or HERON_MODEL."
            )
        case "context_overflow":
            return ContextOverflow(f"the conversation no longer fits {model} ({said})")
        case "bad_request":
            return BadRequest(f"{who} rejected the request ({said})")
        case "rate_limit" | "overloaded" | "server_error" | "timeout" | "connection":
            reason, fix = REASONS[fault], ""
            if fault == "connection":
                fix = f"; check the network and {provider}'s base URL"
            return ModelUnavailable(f"{reason} ({said}{fix})", retry_after=retry_after, fault=fault)


REASONS: dict[Fault, str] = {
    "rate_limit": "rate limited",
    "overloaded": "overloaded",
    "server_error": "server error",
    "timeout": "timed out",
    "connection": "unreachable",
}


def from_status(
    provider: str,
    model: str,
    status: int | None,
    body: object,
    headers: Mapping[str, str] | None = None,
    *,
    exception: str = "",
    key: str = "",
) -> ModelError:
    """The core error for an error answer from ``provider`` (``status`` None: no answer, or an
    error event inside a stream; ``body`` then says what it can)."""
    fault = classify(status, body, exception)
    message = error_message(body, body if isinstance(body, str) else "")
    wait = retry_after(headers or {})
    return to_error(fault, provider, model, message, status=status, retry_after=wait, key=key)


def after_start(error: ModelError, started: bool) -> ModelError:
    """A fault after output reached the user cannot be retried without repeating it."""
    if started and isinstance(error, ModelUnavailable):
        return StreamInterrupted(f"the response was cut off: {error}")
    return error


def error_message(body: object, fallback: str) -> str:
    """The human message in a provider's error body (``{"error": {"message": ...}}`` and kin)."""
    node: Any = body
    for key in ("error", "message"):
        if isinstance(node, dict) and key in node:
            node = cast(dict[str, Any], node)[key]
    return node if isinstance(node, str) and node else fallback


def _code(body: object) -> str:
    """The machine-readable code of an error body: OpenAI's ``code`` (else its ``type``),
    Anthropic's ``error.type``."""
    node: Any = body
    if isinstance(node, dict) and isinstance(cast(dict[str, Any], node).get("error"), dict):
        node = cast(dict[str, Any], node)["error"]
    if not isinstance(node, dict):
        return ""
    fields = cast(dict[str, Any], node)
    for key in ("code", "type"):
        value = fields.get(key)
        if isinstance(value, str) and value in CODES:
            return value
    return ""


def _one_line(text: str, limit: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    lowered = {k.lower(): v for k, v in headers.items()}
    if value := lowered.get("retry-after-ms"):
        try:
            return max(float(value) / 1000, 0.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    import email.utils  # only for the rare HTTP-date form

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)
