"""The containers of the workspaces whose sessions use the container backend (``[execution]``):
one per workspace, shared by its sessions in this process, and what commands in them are given
of Heron's environment. The server owns one ``WorkspaceContainers``; ``wiring`` asks it for a
session's container. Nothing of the container machinery loads until one is asked for."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from agent_core.config import Settings
from agent_core.errors import ConfigError
from agent_core.ports.unattended import unattended

if TYPE_CHECKING:
    from agent_core.execution.container import Container
    from agent_core.execution.settings import ExecutionSettings


class WorkspaceContainers:
    """The container of each workspace whose sessions use the container backend: one per
    workspace, shared by its sessions in this process, removed when Heron ends (unless another
    Heron process still uses it). Nothing of the container machinery loads until one is asked
    for."""

    def __init__(self) -> None:
        self._made: dict[object, Container] = {}

    def container(
        self,
        execution: ExecutionSettings,
        roots: tuple[Path, ...],
        settings: Settings,
        environment: Mapping[str, str],
    ) -> Container:
        from agent_core.execution.container import Container, ContainerSpec, find_devcontainer
        from agent_core.execution.engine import Engine

        devcontainer = None
        if not (execution.image or execution.dockerfile):
            devcontainer = find_devcontainer(roots[0])
            if devcontainer is None:
                raise ConfigError(
                    f'config.toml: [execution] backend = "container" for {roots[0]} needs image '
                    "or dockerfile, or the workspace's .devcontainer/devcontainer.json"
                )
        spec = ContainerSpec(
            roots=roots,
            home=Path.home(),
            heron_home=settings.home,
            image=execution.image,
            dockerfile=execution.dockerfile,
            devcontainer=devcontainer,
            network=execution.network,
            run_options=execution.run_options,
        )
        key = (spec, execution.engine, execution.engine_options)
        if (made := self._made.get(key)) is None:
            engine = Engine.find(
                execution.engine,
                state=settings.home / "containers",
                environment=environment,
                options=execution.engine_options,
            )
            made = self._made[key] = Container(engine, spec)
        return made

    async def close(self) -> None:
        """Every container made here stopped and removed (each left to a live Heron process
        that uses it too)."""
        made, self._made = list(self._made.values()), {}
        for container in made:
            await container.close()


def command_environment(environment: Mapping[str, str]) -> dict[str, str]:
    """What commands in a container are given of Heron's environment: the locale, nothing else
    (the image says the rest: PATH, HOME); and ``ports.unattended``'s table, as everywhere."""
    chosen = {k: v for k, v in environment.items() if k == "LANG" or k.startswith("LC_")}
    return unattended({**chosen, "TERM": "dumb"})
