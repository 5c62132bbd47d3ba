"""What the handlers share: the connection, the settings, the client's capabilities and the open
sessions."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import anyio
import anyio.abc
from msgspec import Struct, field

from acp_server.bridge.modes import SessionOptions
from acp_server.handlers.client import ClientInfo
from acp_server.jsonrpc.connection import Connection
from acp_server.jsonrpc.errors import RESOURCE_NOT_FOUND, RpcError
from acp_server.session import Session
from acp_server.session_parts import Restored, SessionSetup
from agent_core.config import ConfigWatch, Settings

if TYPE_CHECKING:  # the agent machinery loads after `initialize` is answered
    from acp_server.handlers.live import LiveWorkspaces
    from agent_core.models.listing import ModelLists
    from agent_core.sessions.resilient import ResilientStore

T = TypeVar("T")


class SessionFactory(Protocol):
    def __call__(self, setup: SessionSetup, client: ClientInfo, restored: Restored) -> Session: ...


class ServerState(Struct):
    connection: Connection
    config: ConfigWatch  # the settings, read again when config.toml changes
    build_session: SessionFactory
    store: ResilientStore  # a failure to save is a notice to the session, never a failed turn
    preload: Callable[[], None] = lambda: None  # once `initialize` is answered: what sessions need
    probe: Callable[[], None] = lambda: None  # from the start: which sandbox this machine has
    warm_up: Callable[[], None] = lambda: None  # then: what a turn needs for its model request
    start_sdk: Callable[[], None] = lambda: None  # then: the provider's SDK, in a thread of its own
    client: ClientInfo = field(default_factory=ClientInfo)
    background: anyio.abc.TaskGroup | None = None  # what outlives a request: MCP connections
    model_lists: ModelLists | None = None  # what the providers offer, for the model picker
    sessions: dict[str, Session] = field(default_factory=dict[str, Session])
    live: LiveWorkspaces | None = None  # the watchers, from the first session's follow-up
    # Sessions the front door opened that could not be built: each request naming one gets why.
    refused: dict[str, RpcError] = field(default_factory=dict[str, RpcError])
    _runs: dict[str, anyio.Event] = field(default_factory=dict[str, anyio.Event])

    @property
    def settings(self) -> Settings:
        """The settings as last read (``config.refresh()`` reads them again if they changed)."""
        return self.config.settings

    async def run_once(self, name: str, work: Callable[[], None]) -> None:
        """Run ``work`` (imports, mostly) in a worker thread the first time; a later call waits
        for that run to end, so that what it loads is never loaded on the event loop."""
        ran = self._runs.get(name)
        if ran is not None:
            await ran.wait()
            return
        ran = self._runs[name] = anyio.Event()
        try:
            await anyio.to_thread.run_sync(work)
        finally:
            ran.set()

    async def load_ahead(self) -> None:
        """What a first prompt needs, loaded once ``initialize`` is answered: one step after
        another, in the order the prompt needs them (``acp_server.loading``)."""
        await self.run_once("preload", self.preload)
        await self.run_once("turn machinery", self.warm_up)
        await self.run_once("provider SDK", self.start_sdk)  # begun: it loads in its own thread

    async def by_schema(self, read: Callable[[Any], T], raw: Any) -> T:
        """``read(raw)``, which validates params against the generated wire models (pydantic),
        once they are loaded: in a worker thread, the first time (~100 ms). Plain params are
        read by hand instead (``plain_params``)."""
        await self.run_once("wire models", _load_wire_models)
        return read(raw)

    def options(self, session: Session) -> SessionOptions:
        """A session's options, its model picker with what the providers offer."""
        return session.options(self.listed())

    def listed(self) -> dict[str, tuple[str, ...]]:
        """What the providers' models endpoints offer, as known now (never waits)."""
        if self.model_lists is None:
            return {}
        from agent_core.models.choices import listable

        in_use = [session.model_spec for session in self.sessions.values()]
        return self.model_lists.known(listable(self.settings, in_use))

    def session(self, session_id: Any) -> Session:
        session = self.sessions.get(session_id) if isinstance(session_id, str) else None
        if session is None:
            if isinstance(session_id, str) and session_id in self.refused:
                raise self.refused[session_id]
            if (parent := self.parent_of(session_id)) is not None:
                raise RpcError.invalid_params(
                    f"{session_id!r} is a subagent's session, inside session {parent.id!r}: "
                    "the only request it takes is session/cancel, which stops its work"
                )
            raise unknown_session(session_id)
        return session

    def parent_of(self, session_id: Any) -> Session | None:
        """The open session that a subagent's session belongs to (None: no subagent's)."""
        if not isinstance(session_id, str):
            return None
        return next((s for s in self.sessions.values() if s.owns(session_id)), None)

    def open(self, session: Session) -> Session:
        self.sessions[session.id] = session
        return session

    async def close(self, session: Session) -> None:
        """Its turn cancelled and saved, its processes stopped, and it gone from memory."""
        await session.end()
        self.sessions.pop(session.id, None)
        if self.live is not None:
            self.live.forget(session.id)


def unknown_session(session_id: Any) -> RpcError:
    return RpcError(
        RESOURCE_NOT_FOUND, f"Unknown session id {session_id!r}", {"sessionId": session_id}
    )


def _load_wire_models() -> None:
    from acp_server.handlers import wire

    wire.warm_up()
