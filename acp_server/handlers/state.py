"""What the handlers share: the connection, the client's capabilities and the live sessions."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import anyio
import anyio.abc

from acp_server.bridge.modes import SessionOptions, session_options
from acp_server.handlers.greeting import ClientInfo
from acp_server.jsonrpc.connection import Connection
from acp_server.jsonrpc.errors import RESOURCE_NOT_FOUND, RpcError
from agent_core.config import ConfigWatch, ProviderSettings, Settings
from agent_core.mcp.servers import McpServerSpec

if TYPE_CHECKING:  # the agent machinery loads after `initialize` is answered
    from acp_server.bridge.transcript import TranscriptBuilder
    from acp_server.bridge.writes import WriteBehind
    from agent_core.approvals import Permissions
    from agent_core.checkpoints.session import Checkpoints
    from agent_core.events import NoticeRaised, UsageUpdated
    from agent_core.loop.agent import Agent
    from agent_core.mcp.pool import McpServers
    from agent_core.messages import Message
    from agent_core.models.base import Model
    from agent_core.models.listing import ModelLists
    from agent_core.safety.sandbox.confinement import Confinement
    from agent_core.sessions.resilient import ResilientStore
    from agent_core.terminal import Terminal
    from agent_core.workspace import Workspace


@dataclass(frozen=True)
class SessionSetup:
    session_id: str
    cwd: Path
    additional_directories: tuple[Path, ...]
    mcp_servers: tuple[McpServerSpec, ...]
    system_prompt: tuple[str, str] | None = None  # the editor's (mode, text)


@dataclass
class ModelChoice:
    """The session's model and thought level, which the user may switch."""

    spec: str  # "<provider>:<model>"
    model: Model
    thought_level: str = "default"  # or "low" | "medium" | "high"
    credentials: tuple[ProviderSettings, ...] = ()  # what the model was built with

    @property
    def reasoning_effort(self) -> str | None:
        return None if self.thought_level == "default" else self.thought_level


SystemPrompt = tuple[str, list["NoticeRaised"]]  # the text, and a notice per file left out


@dataclass(frozen=True)
class SessionParts:
    """What the composition root builds for a session.

    The agent itself (tools, their pydantic argument models, the loop) is built on first use:
    ``session/new`` answers without waiting for those imports.
    """

    choice: ModelChoice
    permissions: Permissions
    terminal: Terminal
    sandbox: Confinement
    make_agent: Callable[[SystemPrompt], Agent]  # with the system prompt made for it
    send: Callable[[dict[str, Any]], Awaitable[None]]  # a session/update, also kept for replay
    transcript: TranscriptBuilder
    system_prompt: Callable[[], SystemPrompt]  # as the workspace is now; blocking (its files)
    writes: WriteBehind  # the session's store writes during a turn
    mcp: McpServers  # the session's MCP servers, started once the session is open
    workspace: Workspace  # the session's files, through the editor where it offers them
    checkpoints: Checkpoints  # the workspace before each turn's first change
    prepare: Callable[[], None]  # blocking: what the first prompt needs, made ahead in a thread
    release: Callable[[], Awaitable[None]]  # its share of the process's language servers

    async def close(self) -> None:
        """Stop what the session started: its commands, its MCP servers, its sandbox's leftovers,
        the language servers no other session uses."""
        await self.terminal.close()
        await self.mcp.close()
        await self.release()
        self.sandbox.close()


@dataclass(frozen=True)
class Restored:
    """What a stored session brings back: its conversation, its choices and its last usage."""

    history: Sequence[Message] = ()
    mode: str | None = None
    model: str | None = None
    thought_level: str | None = None
    usage: UsageUpdated | None = None  # the meter goes on from it


class SessionFactory(Protocol):
    def __call__(
        self, setup: SessionSetup, client: ClientInfo, restored: Restored
    ) -> SessionParts: ...


@dataclass
class Session:
    setup: SessionSetup
    parts: SessionParts
    turn_lock: anyio.Lock = field(default_factory=anyio.Lock)
    _agent: Agent | None = None
    _building: anyio.Lock = field(default_factory=anyio.Lock)  # one agent, however many ask
    turn_scope: anyio.CancelScope | None = None
    cancellations: int = 0  # prompts queued before the latest cancel do not run
    ticket: int = 0  # the cancels counted when the running prompt arrived
    titled: bool = False  # set after the first exchange (or when loaded with a title)
    instructions: dict[Path, tuple[int, int]] | None = None  # context files as the prompt saw them

    @property
    def id(self) -> str:
        return self.setup.session_id

    @property
    def agent(self) -> Agent:
        """The agent, once ``ready`` has built it (built here, on the event loop, otherwise)."""
        if self._agent is None:
            self._agent = self.parts.make_agent(self.parts.system_prompt())
        return self._agent

    async def ready(self) -> Agent:
        """The agent, built on first use; its system prompt, which reads the workspace's files
        and asks git, is made in a worker thread (left to finish alone when the wait is
        cancelled)."""
        async with self._building:
            if self._agent is None:
                prompt = await anyio.to_thread.run_sync(
                    self.parts.system_prompt, abandon_on_cancel=True
                )
                self._agent = self.parts.make_agent(prompt)
        return self._agent

    def options(
        self, settings: Settings, listed: Mapping[str, tuple[str, ...]] | None = None
    ) -> SessionOptions:
        """``listed``: what the providers' models endpoints offer, as known now."""
        choice = self.parts.choice
        return session_options(
            self.parts.permissions.mode,
            choice.spec,
            choice.thought_level,
            settings,
            self.parts.sandbox.describe(),
            listed,
        )

    def switch_model(
        self, spec: str, model: Model, credentials: tuple[ProviderSettings, ...]
    ) -> None:
        choice = self.parts.choice
        choice.spec, choice.model, choice.credentials = spec, model, credentials
        if self._agent is not None:
            self._agent.model = model

    def set_thought_level(self, level: str) -> None:
        self.parts.choice.thought_level = level
        if self._agent is not None:
            self._agent.reasoning_effort = self.parts.choice.reasoning_effort

    def cancel(self) -> None:
        """Stop the running turn and every prompt queued behind it."""
        self.cancellations += 1
        if self.turn_scope is not None:
            self.turn_scope.cancel()

    def watch(self, scope: anyio.CancelScope) -> None:
        """``scope`` is what ``cancel`` stops now. A cancel that came since the running prompt
        arrived, between two watched steps, stops it at once: no cancel is lost in a gap."""
        self.turn_scope = scope
        if self.cancellations != self.ticket:
            scope.cancel()


@dataclass
class ServerState:
    connection: Connection
    config: ConfigWatch  # the settings, read again when config.toml changes
    build_session: SessionFactory
    store: ResilientStore  # a failure to save is a notice to the session, never a failed turn
    preload: Callable[[], None] = lambda: None  # once `initialize` is answered: the turn machinery
    probe: Callable[[], None] = lambda: None  # from the start: which sandbox this machine has
    warm_up: Callable[[], None] = lambda: None  # once a session exists: what prompts need
    client: ClientInfo = field(default_factory=ClientInfo)
    background: anyio.abc.TaskGroup | None = None  # what outlives a request: MCP connections
    model_lists: ModelLists | None = None  # what the providers offer, for the model picker
    sessions: dict[str, Session] = field(default_factory=dict[str, Session])
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

    def options(self, session: Session) -> SessionOptions:
        """A session's options, its model picker with what the providers offer."""
        return session.options(self.settings, self.listed())

    def listed(self) -> dict[str, tuple[str, ...]]:
        """What the providers' models endpoints offer, as known now (never waits)."""
        if self.model_lists is None:
            return {}
        from agent_core.models.choices import listable

        in_use = [session.parts.choice.spec for session in self.sessions.values()]
        return self.model_lists.known(listable(self.settings, in_use))

    def session(self, session_id: Any) -> Session:
        session = self.sessions.get(session_id) if isinstance(session_id, str) else None
        if session is None:
            raise unknown_session(session_id)
        return session

    async def notify_update(self, session_id: str, update: dict[str, Any]) -> None:
        await self.connection.notify("session/update", {"sessionId": session_id, "update": update})


def unknown_session(session_id: Any) -> RpcError:
    return RpcError(
        RESOURCE_NOT_FOUND, f"Unknown session id {session_id!r}", {"sessionId": session_id}
    )
