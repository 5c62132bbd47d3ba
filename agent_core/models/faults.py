"""Provider failures, whatever the SDK: HTTP status + message + headers -> the core's errors."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, cast

from agent_core.errors import (
    ContextOverflow,
    ModelConfigError,
    ModelError,
    ModelUnavailable,
    StreamInterrupted,
)

RETRYABLE_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
OVERFLOW_HINTS = (
    "prompt is too long",
    "context length",
    "context_length_exceeded",
    "maximum context",
    "too many tokens",
    "input is too long",
)


def from_status(
    provider: str, model: str, status: int, message: str, headers: Mapping[str, str]
) -> ModelError:
    """The core error for an HTTP error answer from ``provider``."""
    detail = f"{provider} answered {status}: {message}"
    if status in RETRYABLE_STATUSES:
        return ModelUnavailable(_short(status, detail), retry_after=retry_after(headers))
    if status in (401, 403):
        return ModelConfigError(
            f"{detail}. Check the API key for {provider} (see `heron acp` docs: keys)."
        )
    if status == 404:
        return ModelConfigError(f"{detail}. Is {model!r} a model {provider} offers?")
    if any(hint in message.lower() for hint in OVERFLOW_HINTS):
        return ContextOverflow(detail)
    return ModelError(detail)


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


def _short(status: int, detail: str) -> str:
    reason = {429: "rate limited", 529: "overloaded", 503: "unavailable", 408: "timed out"}
    return f"{reason.get(status, 'server error')} ({detail})"
