"""One session's composition: its model, tools, store writes, sandbox, language servers and
editor-backed ports, built from the settings as they are when it opens (``session/new``, load,
resume, fork). With ``cli``, the only place concrete classes are wired together."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from acp_server.containers import WorkspaceContainers, command_environment
from acp_server.handlers.client import ClientInfo
from acp_server.handlers.session_setup import first_thought_level
from acp_server.handlers.state import SessionFactory
from acp_server.jsonrpc.connection import Connection
from acp_server.session import Session
from acp_server.session_diagnostics import diagnostics, language_servers
from acp_server.session_parts import (
    ModelChoice,
    Restored,
    Save,
    SessionParts,
    SessionSetup,
    SystemPrompt,
)
from acp_server.session_tools import RenewableTools, ToolSources, session_toolset
from agent_core.config import ConfigWatch, Settings
from agent_core.errors import ConfigError

if TYPE_CHECKING:
    from agent_core.diagnostics.pool import ServerPool
    from agent_core.execution.runner import ContainerRunner
    from agent_core.hooks.runner import Hooks
    from agent_core.hooks.settings import HookSettings
    from agent_core.loop.agent import Agent
    from agent_core.models.listing import ModelLists
    from agent_core.modes import Mode
    from agent_core.ports.runner import CommandRunner
    from agent_core.safety.sandbox.confinement import Launcher
    from agent_core.sessions.resilient import ResilientStore
    from agent_core.skills.catalog import Catalog
    from agent_core.tools.base import Tool


def session_factory(
    connection: Connection,
    config: ConfigWatch,
    store: ResilientStore,
    servers: ServerPool,
    lists: ModelLists | None = None,
    containers: WorkspaceContainers | None = None,
) -> SessionFactory:
    """How a session is assembled: the model, the tools, the store, the editor-backed ports,
    from the settings as they are when it opens (``lists``: what providers offer, for the
    model picker)."""

    def build(setup: SessionSetup, client: ClientInfo, restored: Restored) -> Session:
        if config.problem:
            raise ConfigError(config.problem)
        wiring = _SessionWiring(
            connection, config.settings, store, setup, client, restored, servers, containers
        )
        wiring.hooks = wiring.make_hooks(lambda: config.settings.hooks)  # follow config.toml
        wiring.config = config  # [tools] switches follow config.toml from prompt to prompt
        session = Session(setup, wiring.parts(), store, config, lists, titled=restored.titled)
        wiring.session = session
        return session

    return build


class _SessionWiring:
    """One session's parts and the small functions that connect them, and its agent, made on
    first use (``AgentMaker``). Built on ``session/new``, load, resume, fork."""

    def __init__(
        self,
        connection: Connection,
        settings: Settings,
        store: ResilientStore,
        setup: SessionSetup,
        client: ClientInfo,
        restored: Restored,
        pool: ServerPool,
        containers: WorkspaceContainers | None = None,
    ) -> None:
        from acp_server.bridge.approver import EditorApprover
        from acp_server.bridge.editor_terminal import EditorTerminal
        from acp_server.bridge.questions import EditorQuestioner
        from acp_server.bridge.stream import UpdateStream
        from acp_server.bridge.transcript import TranscriptBuilder
        from acp_server.bridge.workspace import EditorWorkspace
        from acp_server.bridge.writes import WriteBehind
        from agent_core.approval.permissions import Permissions
        from agent_core.approval.rules import JsonRuleStore
        from agent_core.checkpoints.session import session_checkpoints
        from agent_core.config import scrubbed_environment
        from agent_core.context.session_prompt import SessionPrompts
        from agent_core.mcp.connection import Timeouts
        from agent_core.mcp.pool import McpServers
        from agent_core.mcp.servers import merge
        from agent_core.mcp.stdio import ProcessSetup
        from agent_core.memory.notes import memory_of
        from agent_core.models.registry import create_model
        from agent_core.ports.interactive import WithTerminals
        from agent_core.ports.runner import LocalRunner
        from agent_core.ports.unattended import unattended
        from agent_core.safety.git import HardenedGit
        from agent_core.safety.sandbox.confinement import Confinement
        from agent_core.safety.sandbox.detect import detect

        self.connection, self.settings, self.store = connection, settings, store
        self.setup, self.restored = setup, restored
        environment = scrubbed_environment(settings.keep_environment)
        self.sandbox = Confinement(
            detect(network=settings.sandbox.network == "allow"),
            settings.sandbox,
            setup.roots,
            home=Path.home(),
            heron_home=settings.home,
            scrubbed=tuple(environment.removed),
        )
        self.git = HardenedGit(environment.kept, self.read_only)
        self.transcript = TranscriptBuilder()
        self.stream = UpdateStream(
            connection,
            setup.session_id,
            self.transcript,
            notices=client.can("session", "notices"),
            compaction=client.can("session", "compaction"),
            subagents=client.can("subagents"),
        )
        self.report = self.stream.report
        execution = settings.execution.for_workspace(setup.cwd)
        self.container: ContainerRunner | None = None
        self.launcher: Launcher = self.sandbox
        if execution.backend == "container":
            from agent_core.execution.runner import ContainerLauncher, ContainerRunner

            container = (containers or WorkspaceContainers()).container(
                execution, setup.roots, settings, environment.kept
            )
            self.container = ContainerRunner(
                container, command_environment(environment.kept), progress=self.container_progress
            )
            self.launcher = ContainerLauncher()
        self.where = execution.describe()
        self.writes = WriteBehind()
        spec = restored.model or settings.model or ""
        self.choice = ModelChoice(
            spec,
            create_model(spec, settings),
            restored.thought_level or first_thought_level(settings),
            settings.credentials(spec),
        )
        self.permissions = Permissions(
            mode=restored.mode or settings.default_mode,  # type: ignore[arg-type]  # validated on the way in
            approver=EditorApprover(connection, setup.session_id),
            rules=JsonRuleStore(settings.permissions_file, setup.cwd),
            on_mode_change=self.mode_changed,
            sandboxed=self.sandbox.sandboxed or self.container is not None,
            on_notice=self.report,
        )
        self.questions = EditorQuestioner(
            connection, setup.session_id, elicitation=client.can("elicitation", "form")
        )
        commands = unattended(environment.kept)  # what commands see: nothing waits for a person
        self.runner: CommandRunner = self.container or WithTerminals(
            EditorTerminal(connection, setup.session_id)
            if client.can("terminal")
            else LocalRunner(commands),
            commands,  # an interactive program runs here, in a pseudo-terminal of its own
        )
        confine_servers = settings.sandbox.mcp_servers and self.sandbox.active
        self.mcp = McpServers(
            merge(setup.mcp_servers, settings.mcp_servers),
            setup.cwd,
            ProcessSetup(
                environment.kept,
                self.confined_server if confine_servers else self.unconfined_server,
            ),
            Timeouts(settings.mcp_connect_timeout, settings.mcp_call_timeout),
            self.report,
        )
        self.environment = commands  # execute_code's scripts are commands too
        self.workspace = EditorWorkspace(
            connection,
            setup.session_id,
            setup.roots,
            read_via_editor=client.can("fs", "readTextFile"),
            write_via_editor=client.can("fs", "writeTextFile"),
        )
        self.checkpoints = session_checkpoints(
            settings.checkpoints, settings.home, setup.cwd, setup.session_id, environment.kept
        )
        self.language_servers = language_servers(
            settings,
            setup,
            pool,
            environment.kept,
            tuple(environment.removed),
            self.container,
            self.warn,
        )
        self.diagnostics = diagnostics(settings, connection, setup, client, self.language_servers)
        self.memory = memory_of(settings)  # None when turned off
        self.prompts = SessionPrompts(
            setup.roots,
            settings.shell,
            lambda: self.choice.spec,  # the session's model as it is now
            self.git.summary,
            editor=setup.system_prompt,
            user_files=settings.user_instructions,
            memory=self.memory,
            skills=self.skills if settings.skills.enabled else None,
            switched_off=self.switched_off,
            api=lambda spec: settings.provider(spec.partition(":")[0]).api,
        )
        self.session: Session | None = None  # what it was built for, once built
        self.hooks: Hooks | None = None  # the user's hooks (``make_hooks``)
        self.config: ConfigWatch | None = None  # where [tools] is read again, once built
        self._switches = settings.tools
        self._tools: RenewableTools | None = None  # the agent's, once made
        self._prompted_off: frozenset[str] | None = None  # as the system prompt was made
        self._told_container = False

    def make_hooks(self, settings: Callable[[], HookSettings]) -> Hooks:
        """The session's hooks, as ``settings`` gives them at each use; they run in the OS
        sandbox of this machine, in a container session too (the container is for the
        workspace's commands; a hook is the user's own)."""
        from agent_core.hooks.runner import Hooks

        return Hooks(
            settings,
            session_id=self.setup.session_id,
            roots=self.setup.roots,
            launcher=self.sandbox,
            environment=self.environment,
            report=self.report,
            mode=lambda: self.permissions.mode,
        )

    async def container_progress(self, line: str) -> None:
        """What the container's start says (an image built, a container made), as notices."""
        from agent_core.events import NoticeRaised

        if not self._told_container:
            self._told_container = True
            also = "Heron's language servers run in it too."
            await self.report(NoticeRaised("info", "Commands run in a container", also))
        await self.report(NoticeRaised("info", "Container", line))

    async def warn(self, title: str, description: str) -> None:
        from agent_core.events import NoticeRaised

        await self.report(NoticeRaised("warning", title, description))

    def read_only(self, argv: list[str]) -> list[str]:
        """``argv`` in the session's sandbox, changing nothing (Heron's own git calls)."""
        return self.sandbox.launch(argv, writable=False, tether=False).argv  # waited for

    def confined_server(self, argv: list[str], environment: Mapping[str, str]) -> list[str]:
        """An MCP server's command line in the session's sandbox (``[sandbox] mcp_servers``):
        writable as commands are, its program and ``PYTHONPATH`` visible wherever they are."""
        paths = environment.get("PYTHONPATH", "").split(os.pathsep)
        needs = [Path(argv[0]).parent, *(Path(p) for p in paths if p)]
        return self.sandbox.launch(argv, writable=True, needs=needs).argv

    def unconfined_server(self, argv: list[str], environment: Mapping[str, str]) -> list[str]:
        """An MCP server's command line outside the sandbox (the default): secrets unset."""
        del environment  # already scrubbed
        return self.sandbox.unconfined(argv).argv

    def parts(self) -> SessionParts:
        return SessionParts(
            self.choice,
            self.permissions,
            self.runner,
            self.sandbox,
            self.stream,
            self.transcript,
            self.writes,
            self.mcp,
            self.workspace,
            self.checkpoints,
            self,
            self.language_servers.close,
            self.where,
            self.hooks,
        )

    def prepare(self) -> None:
        """What the agent needs that takes a while, made once the session is open: a stored
        conversation decoded, and git's view of the workspace (a few sandboxed git processes)."""
        for _ in self.restored.history:  # decoded as it is read (``StoredMessages``)
            pass
        self.prompts.look_ahead()

    async def mode_changed(self, mode: Mode) -> None:
        """The user or the agent switched the mode: the session stores it and says so."""
        assert self.session is not None  # built before anything can switch its mode
        await self.session.mode_changed(mode)

    def system_prompt(self) -> SystemPrompt:
        self._prompted_off = self.switched_off()
        return self.prompts.system_prompt()

    def switched_off(self) -> frozenset[str]:
        """The tools off now: ``[tools]`` as config.toml says it (a file being edited keeps the
        last good reading), in the session's mode."""
        if self.config is not None and self.config.problem is None:
            self._switches = self.config.settings.tools
        return self._switches.off(self.permissions.mode)

    def tools_changed(self) -> bool:
        """Whether the tools switched off differ from the system prompt's (a mode switch, an
        edit of ``[tools]``): its guidance is made again."""
        return self._prompted_off is not None and self.switched_off() != self._prompted_off

    def skills(self) -> Catalog:
        """The skills on disk now, from the folders the settings name."""
        from agent_core.skills.catalog import skills_on_disk

        return skills_on_disk(self.settings.skills, self.setup.cwd, self.settings.home)

    def renew_tools(self) -> None:
        """The agent's tools made again, with the MCP servers the session has now."""
        if self._tools is not None:
            self._tools.renew(self.toolset())

    def toolset(self) -> Mapping[str, Tool]:
        return session_toolset(
            ToolSources(
                self.settings,
                self.mcp,
                self.environment,
                self.container,
                self.memory,
                self.skills,
                lambda: self.choice.spec,
                self.prompts.subagent_prompt,
                self.hooks,
                self.switched_off,
            )
        )

    def make_agent(self, prompt: SystemPrompt, save: Save) -> Agent:
        """The session's agent, with ``prompt`` (``system_prompt()``, made in a worker thread),
        its completed messages kept by ``save``."""
        from agent_core.loop.agent import Agent
        from agent_core.loop.meter import ContextMeter
        from agent_core.sessions.search import OtherSessions
        from agent_core.tools.base import ToolContext

        text, notices = prompt
        context = ToolContext(
            "",
            self.workspace,
            self.permissions,
            self.report,
            self.runner,
            self.launcher,
            search_sessions=OtherSessions(self.store, self.setup.cwd, self.setup.session_id).search,
            checkpoints=self.checkpoints,
            diagnostics=self.diagnostics,
            questions=self.questions,
        )
        agent = Agent(
            model=self.choice.model,
            tools=(tools := RenewableTools(self.toolset())),
            system_prompt=text,
            notices=notices,
            tool_context=context,
            history=self.restored.history,
            reasoning_effort=self.choice.reasoning_effort,
            max_requests=self.settings.max_turn_requests,
            save=save,
            compact_at=self.settings.compact_at,
        )
        self._tools = tools
        agent.meter = ContextMeter(self.restored.usage)  # a stored session's spend goes on
        return agent
