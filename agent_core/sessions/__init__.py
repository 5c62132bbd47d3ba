"""Session persistence: the ``SessionStore`` port and its implementations."""

from agent_core.sessions.store import SessionRecord, SessionStore

__all__ = ["SessionRecord", "SessionStore"]
