"""Heron's language servers in a container session: run inside the workspace's container, with
its toolchain, rather than on the host.

A server's program is looked up inside the container (``command -v`` through the command server,
once, on the first edit of a file some server covers, which starts the container if need be); a
configured absolute ``command`` is taken as it is, a path inside the container. The server runs as
``<engine> exec -i -w <root> <container> ...`` with stdio pipes (``Container.tethered_argv``): the
workspace is at the same path inside, so file URIs need no translation, and killing the exec
client (a server stopped, Heron gone) kills the server's process group inside. The container is
the sandbox: no other confinement is added. A server the image lacks is refused with a notice,
once, as a missing server on the host is (``diagnostics.pool``).

Part of the composition root: it joins two feature packages of agent_core (``execution`` and
``diagnostics``) that may not import each other. Imported only by a container session.
"""

from __future__ import annotations

import logging
from pathlib import Path

import anyio.from_thread

from agent_core.diagnostics.launching import Refused, ServerLaunch, logged
from agent_core.diagnostics.servers import DEFAULTS, LanguageServerSpec, Which
from agent_core.execution.container import Container
from agent_core.execution.engine import EngineError
from agent_core.execution.runner import ContainerRunner

log = logging.getLogger("heron.execution")

INSIDE = " (in the workspace's container)"


class ContainerServerLauncher:
    """How a container session finds and starts its language servers."""

    def __init__(
        self,
        runner: ContainerRunner,
        container: Container,
        root: Path,
        configured: tuple[LanguageServerSpec, ...],
        *,
        log_file: Path,
        config: Path,
    ) -> None:
        self._runner, self._container, self._root = runner, container, root
        self._configured, self._log_file, self._config = configured, log_file, config

    async def finder(self) -> Which:
        """Where the servers' programs are inside the container, looked up at once: the
        configured ones' and the defaults'."""
        specs = [*self._configured, *(spec for group in DEFAULTS for spec in group)]
        names = list(dict.fromkeys(spec.command[0] for spec in specs))
        try:
            found = await self._runner.programs(names, self._root)
        except EngineError as exc:  # told when a server is started (``__call__``)
            log.warning("language servers not looked up in the container: %s", exc)
            found = {}
        roots = (self._root,)

        def which(name: str) -> str | None:
            if "/" in name:
                return name if Path(name).is_absolute() else None
            path = found.get(name)
            if path is None or any(Path(path).is_relative_to(r) for r in roots):
                return None  # not a program the workspace planted either
            return path

        return which

    def __call__(self, spec: LanguageServerSpec) -> ServerLaunch:
        """``spec``'s command line (run in a worker thread); raises ``Refused``."""
        program, label = spec.command[0], f"[diagnostics.servers.{spec.name}]"
        if not Path(program).is_absolute():
            raise Refused(
                f"{program} was not found in the workspace's container ({self._container.name}):"
                f" install it in the image, or give its absolute path inside the container as "
                f"{label} command in {self._config}"
            )
        try:  # up already after the look-up, unless that failed
            anyio.from_thread.run(self._runner.server)
        except EngineError as exc:
            raise Refused(f"{spec.name} runs in the workspace's container: {exc}") from exc
        argv = self._container.tethered_argv(self._root, spec.command)
        return ServerLaunch(logged(argv, self._log_file), _nothing, True, INSIDE)


def _nothing() -> None:
    return None
