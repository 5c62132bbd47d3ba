"""One session's diagnostics: where errors after an edit come from. The editor's own where it
offers them (Heron's ``_meta`` capability), else the language servers Heron runs: on this
machine in their own sandbox, or in the workspace's container when its commands run there.
Part of the composition root (``wiring.py``): it builds, it does not behave."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

from acp_server.handlers.client import ClientInfo
from acp_server.jsonrpc.connection import Connection
from acp_server.session_parts import SessionSetup
from agent_core.config import Settings

if TYPE_CHECKING:
    from agent_core.diagnostics.model import Diagnostics
    from agent_core.diagnostics.pool import LanguageServerDiagnostics, ServerPool
    from agent_core.execution.runner import ContainerRunner

Warn = Callable[[str, str], Awaitable[None]]


def language_servers(
    settings: Settings,
    setup: SessionSetup,
    pool: ServerPool,
    environment: Mapping[str, str],
    removed: tuple[str, ...],
    container: ContainerRunner | None,
    warn: Warn,
) -> LanguageServerDiagnostics:
    """The session's view of the shared language servers: found on this machine's ``PATH``
    (absolute folders outside the workspace) and started in a sandbox of their own, or looked
    up and run in the session's ``container``."""
    from agent_core.diagnostics.launching import launcher_for
    from agent_core.diagnostics.pool import LanguageServerDiagnostics
    from agent_core.diagnostics.pool import Launcher as StartServer
    from agent_core.diagnostics.servers import finder

    roots = setup.roots
    search_path = environment.get("PATH", "")
    server_log = settings.log_dir / "language-servers.log"
    launch: StartServer = launcher_for(settings, roots, search_path, removed, server_log)
    find = None
    if container is not None:
        from acp_server.container_servers import ContainerServerLauncher

        inside = ContainerServerLauncher(
            container,
            container.container,
            setup.cwd,
            tuple(settings.diagnostics.servers),
            log_file=server_log,
            config=settings.home / "config.toml",
        )
        launch, find = inside, inside.finder
    return LanguageServerDiagnostics(
        pool,
        setup.session_id,
        setup.cwd,
        settings.diagnostics.servers,
        launch,
        (settings.diagnostics.wait, settings.diagnostics.first_wait),
        warn,
        finder(search_path, roots),
        find,
    )


def diagnostics(
    settings: Settings,
    connection: Connection,
    setup: SessionSetup,
    client: ClientInfo,
    servers: LanguageServerDiagnostics,
) -> Diagnostics | None:
    """The editor's diagnostics where it offers them, else Heron's language servers (None:
    diagnostics are turned off)."""
    from acp_server.bridge.diagnostics import EditorDiagnostics
    from agent_core.diagnostics.model import Diagnostician, Diagnostics, FirstAnswer

    wanted = settings.diagnostics
    if not wanted.enabled:
        return None
    sources: list[Diagnostician] = [servers]
    if client.can("_meta", "heron", "diagnostics"):
        sources.insert(0, EditorDiagnostics(connection, setup.session_id, wanted.wait))
    return Diagnostics(FirstAnswer(sources), wanted.warnings, wanted.max_shown)
