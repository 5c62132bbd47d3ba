"""``[execution]`` in config.toml: where commands run. Read from a parsed table (pure), composed
into ``agent_core.config``'s ``Settings``.

    [execution]
    backend = "container"            # or "local" (the default: the OS sandbox)
    engine = "podman"                # or "docker"; default: podman if installed, else docker
    image = "localhost/my-toolchain" # or dockerfile = "/path/to/Dockerfile"
    network = "none"                 # or "bridge", "host", ...; default: as [sandbox] network
    engine_options = ["--log-level=warn"]   # before the subcommand, on every call
    run_options = ["--memory=4g"]           # added to `run` when the container is created

    [execution.workspaces."/home/me/project"]   # the user's own choice for one folder (and
    backend = "container"                       # what is inside it): the same keys, over
                                                # [execution]; the most specific folder wins

With backend = "container" and neither image nor dockerfile, the workspace's
``.devcontainer/devcontainer.json`` (or ``.devcontainer.json``) makes the image, through the dev
container CLI. A repository's files never select a backend: only the user's config.toml does.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple, cast

from agent_core.config_values import choice, string, strings, table
from agent_core.errors import ConfigError

ENGINES = ("podman", "docker")


class ExecutionSettings(NamedTuple):
    backend: str = "local"
    engine: str | None = None  # None: the first of ENGINES installed
    image: str | None = None
    dockerfile: Path | None = None
    network: str = "bridge"  # as [sandbox] network = "allow" (the default) gives commands
    engine_options: tuple[str, ...] = ()
    run_options: tuple[str, ...] = ()
    # absolute folder -> its settings ([execution] with the folder's table over it)
    workspaces: Mapping[Path, ExecutionSettings] = MappingProxyType({})

    def describe(self) -> str | None:
        """One line for the mode list when commands run in a container (None: they do not)."""
        if self.backend != "container":
            return None
        engine = self.engine or "Podman or Docker"
        source = self.image or (self.dockerfile and self.dockerfile.name) or "devcontainer.json"
        network = ", no network" if self.network == "none" else f", network {self.network}"
        return f"commands run in a container ({engine}, {source}{network})"

    def for_workspace(self, root: Path) -> ExecutionSettings:
        """The settings of a session whose workspace is ``root``: the table of the most specific
        configured folder that is ``root`` or holds it, else ``[execution]`` itself."""
        folders = [folder for folder in self.workspaces if root.is_relative_to(folder)]
        if not folders:
            return self
        return self.workspaces[max(folders, key=lambda folder: len(folder.parts))]


def read_execution(section: dict[str, Any], sandbox_network: str = "allow") -> ExecutionSettings:
    """``[execution]``, and its ``workspaces`` tables, each over ``[execution]``. Without a
    ``network`` of its own, a container has the network ``[sandbox] network`` gives commands
    (``sandbox_network``): the engine's bridge for "allow", none for "deny"."""
    base = {key: value for key, value in section.items() if key != "workspaces"}
    base.setdefault("network", "none" if sandbox_network == "deny" else "bridge")
    general = _read(base, "[execution]")
    workspaces: dict[Path, ExecutionSettings] = {}
    for folder, overrides in table(section, "workspaces", "[execution.workspaces]").items():
        where = f'[execution.workspaces."{folder}"]'
        path = Path(folder).expanduser()
        if not path.is_absolute():
            raise ConfigError(f"config.toml: {where} must name an absolute folder")
        if not isinstance(overrides, dict):
            raise ConfigError(f"config.toml: {where} must be a table")
        overrides = cast(dict[str, Any], overrides)
        merged = {**base, **overrides}
        if "image" in overrides or "dockerfile" in overrides:  # one replaces the other
            for key in ("image", "dockerfile"):
                if key not in overrides:
                    merged.pop(key, None)
        workspaces[path] = _read(merged, where)
    return general._replace(workspaces=MappingProxyType(workspaces))


def _read(section: dict[str, Any], where: str) -> ExecutionSettings:
    backend = choice(section, "backend", ("local", "container")) or "local"
    image = string(section, "image")
    dockerfile = string(section, "dockerfile")
    if image and dockerfile:
        raise ConfigError(f"config.toml: {where} takes image or dockerfile, not both")
    if dockerfile is not None and not Path(dockerfile).expanduser().is_absolute():
        raise ConfigError(
            f"config.toml: {where} dockerfile must be an absolute path, not {dockerfile!r}"
        )
    network = string(section, "network") or "none"  # set by read_execution when not given
    if not network.replace("-", "").replace(":", "").replace("_", "").isalnum():
        raise ConfigError(f"config.toml: {where} network {network!r} is not a network name")
    return ExecutionSettings(
        backend=backend,
        engine=choice(section, "engine", ENGINES),
        image=image,
        dockerfile=Path(dockerfile).expanduser() if dockerfile else None,
        network=network,
        engine_options=tuple(strings(section, "engine_options")),
        run_options=tuple(strings(section, "run_options")),
    )
