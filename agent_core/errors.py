"""The one exception tree of the agent core.

    HeronError                      anything the core raises on purpose
    ├── ConfigError                 config.toml or the environment is wrong; says how to fix it
    ├── ModelError                  a model provider failed
    │   ├── ModelConfigError        unknown provider or model, missing key: not retryable
    │   ├── ModelUnavailable        429, 5xx, timeouts: retryable, carries ``retry_after``
    │   ├── StreamInterrupted       the stream broke off mid-message
    │   └── ContextOverflow         the request did not fit the model's context window
    ├── ToolError                   a tool could not do what was asked; goes back to the model
    │   └── PathOutsideRoots        a path escapes the session's roots
    ├── SessionNotFound             no session with that id
    └── StorageError                the session store cannot be opened, read or written

Tool failures are returned to the model as tool results, never raised out of a turn.
"""

from __future__ import annotations


class HeronError(Exception):
    """Base of every error the core raises on purpose."""


class ConfigError(HeronError):
    """The configuration is invalid; the message names the setting and the fix."""


class ModelError(HeronError):
    """A model provider failed."""


class ModelConfigError(ModelError):
    """The model cannot be used as configured (unknown model, missing key). Not retryable."""


class ModelUnavailable(ModelError):
    """A transient provider failure (rate limit, overload, timeout). Retryable."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class StreamInterrupted(ModelError):
    """The provider's stream ended before the message was complete."""


class ContextOverflow(ModelError):
    """The request exceeded the model's context window."""


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
