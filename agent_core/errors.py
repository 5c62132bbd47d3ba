"""The one exception tree of the agent core.

    HeronError                      anything the core raises on purpose
    ├── ConfigError                 config.toml or the environment is wrong; says how to fix it
    ├── ModelError                  a model provider failed (``models/faults.py`` classifies)
    │   ├── ModelConfigError        the model cannot be used as configured: not retryable
    │   │   ├── AuthenticationFailed    the key was rejected: the turn stops, says which key
    │   │   ├── BillingProblem          no credit or quota left: the turn stops, says where
    │   │   ├── PermissionDenied        the key may not use this model: the next fallback
    │   │   └── ModelNotFound           the provider has no such model: the next fallback
    │   ├── ModelUnavailable        rate limit, overload, 5xx, timeout, no connection:
    │   │                           retried, then the next fallback; carries ``retry_after``
    │   ├── StreamInterrupted       the stream broke off mid-message
    │   ├── ContextOverflow         the request did not fit the window: compacted, sent again
    │   └── BadRequest              the provider rejected the request as malformed
    ├── ToolError                   a tool could not do what was asked; goes back to the model
    │   └── PathOutsideRoots        a path escapes the session's roots
    ├── SessionNotFound             no session with that id
    └── StorageError                the session store cannot be opened, read or written

Tool failures are returned to the model as tool results, never raised out of a turn.
"""

from __future__ import annotations

from typing import cast


class HeronError(Exception):
    """Base of every error the core raises on purpose."""


class ConfigError(HeronError):
    """The configuration is invalid; the message names the setting and the fix."""


class ModelError(HeronError):
    """A model provider failed."""


class ModelConfigError(ModelError):
    """The model cannot be used as configured (unknown model, missing key). Not retryable."""


class AuthenticationFailed(ModelConfigError):
    """The provider rejected the API key; the message names the variable and `heron login`."""


class BillingProblem(ModelConfigError):
    """The account has no credit or quota left (402, OpenAI's ``insufficient_quota``)."""


class PermissionDenied(ModelConfigError):
    """The key may not use this model (403): a fallback model may still answer."""


class ModelNotFound(ModelConfigError):
    """The provider has no such model (404): a fallback model may still answer."""


class ModelUnavailable(ModelError):
    """A transient provider failure (rate limit, overload, server error, timeout). Retryable."""

    def __init__(
        self, message: str, *, retry_after: float | None = None, fault: str = "server_error"
    ) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.fault = fault  # a ``models.faults.Fault``


class StreamInterrupted(ModelError):
    """The provider's stream ended before the message was complete."""


class ContextOverflow(ModelError):
    """The request exceeded the model's context window."""


class BadRequest(ModelError):
    """The provider rejected the request itself (a 4xx that is none of the above)."""


class ToolError(HeronError):
    """A tool failed; the message is shown to the model as the tool result."""


class PathOutsideRoots(ToolError):
    """A path resolves outside the session's workspace roots."""


class SessionNotFound(HeronError):
    """No session with the given id exists."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"no session with id {session_id!r}")
        self.session_id = session_id


class StorageError(HeronError):
    """The session store cannot be used: a full disk, a folder Heron cannot write, a damaged
    file. The message names the file and says why; a session goes on without being saved."""


def innermost(exc: BaseException) -> BaseException:
    """The error itself, not the exception groups around it (a task group's): their first."""
    while isinstance(exc, BaseExceptionGroup):
        exc = cast(BaseExceptionGroup[BaseException], exc).exceptions[0]
    return exc
