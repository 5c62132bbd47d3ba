"""What a session is made of: where it runs, its model choice, what a stored session brings
back, and the parts ``wiring`` builds for it (``SessionParts``), which only ``Session`` uses."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from msgspec import Struct

from agent_core.mcp.servers import McpServerSpec
from agent_core.providers import ProviderSettings

if TYPE_CHECKING:  # the agent machinery loads after `initialize` is answered
    from acp_server.bridge.stream import UpdateStream
    from acp_server.bridge.transcript import TranscriptBuilder
    from acp_server.bridge.writes import WriteBehind
    from agent_core.approval.permissions import Permissions
    from agent_core.checkpoints.session import Checkpoints
    from agent_core.events import NoticeRaised, UsageUpdated
    from agent_core.hooks.runner import Hooks
    from agent_core.loop.agent import Agent
    from agent_core.mcp.pool import McpServers
    from agent_core.messages import Message
    from agent_core.models.base import Model
    from agent_core.ports.runner import CommandRunner
    from agent_core.ports.workspace import Workspace
    from agent_core.safety.sandbox.confinement import Confinement


class SessionSetup(Struct, frozen=True):
    session_id: str
    cwd: Path
    additional_directories: tuple[Path, ...]
    mcp_servers: tuple[McpServerSpec, ...]
    system_prompt: tuple[str, str] | None = None  # the editor's (mode, text)

    @property
    def roots(self) -> tuple[Path, ...]:
        return (self.cwd, *self.additional_directories)


class ModelChoice(Struct):
    """The session's model and thought level, which the user may switch."""

    spec: str  # "<provider>:<model>"
    model: Model
    thought_level: str = "default"  # or "low" | "medium" | "high"
    credentials: tuple[ProviderSettings, ...] = ()  # what the model was built with

    @property
    def reasoning_effort(self) -> str | None:
        return None if self.thought_level == "default" else self.thought_level


class Restored(Struct, frozen=True):
    """What a stored session brings back: its conversation, its choices and its last usage."""

    history: Sequence[Message] = ()
    mode: str | None = None
    model: str | None = None
    thought_level: str | None = None
    usage: UsageUpdated | None = None  # the meter goes on from it
    titled: bool = False


SystemPrompt = tuple[str, list["NoticeRaised"]]  # the text, and a notice per file left out
Save = Callable[["Sequence[Message]", bool], Awaitable[None]]  # (messages, replace)


class AgentMaker(Protocol):
    """How a session's agent is made (``wiring``): its system prompt as the workspace is now
    (blocking: files are read, git is asked), the agent itself, what the first prompt needs
    made ahead (blocking), and whether the tools switched off changed since the prompt was
    made."""

    def system_prompt(self) -> SystemPrompt: ...
    def make_agent(self, prompt: SystemPrompt, save: Save) -> Agent: ...
    def prepare(self) -> None: ...
    def tools_changed(self) -> bool: ...
    def renew_tools(self) -> None: ...


class SessionParts(Struct, frozen=True):
    """What ``wiring`` builds for a session; the session alone uses them."""

    choice: ModelChoice
    permissions: Permissions
    runner: CommandRunner  # where its commands run: the editor's terminals, or here
    sandbox: Confinement
    stream: UpdateStream  # the session's updates, to the editor (and kept for replay)
    transcript: TranscriptBuilder
    writes: WriteBehind  # the session's store writes during a turn
    mcp: McpServers  # the session's MCP servers, started once the session is open
    workspace: Workspace  # the session's files, through the editor where it offers them
    checkpoints: Checkpoints  # the workspace before each turn's first change
    maker: AgentMaker
    release: Callable[[], Awaitable[None]]  # its share of the process's language servers
    where: str | None = None  # where commands run, when not in the OS sandbox (a container)
    hooks: Hooks | None = None  # the user's hooks, from config.toml
