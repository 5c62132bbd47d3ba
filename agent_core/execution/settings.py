"""``[execution]`` in config.toml: where commands run. Read from a parsed table (pure); not yet
composed into ``agent_core.config``.

    [execution]
    backend = "container"            # or "local" (the default: the OS sandbox)
    engine = "podman"                # or "docker"; default: podman if installed, else docker
    image = "localhost/my-toolchain" # or dockerfile = "/path/to/Dockerfile"
    network = "none"                 # or "bridge", "host", "slirp4netns", ...
    engine_options = ["--log-level=warn"]   # before the subcommand, on every call
    run_options = ["--memory=4g"]           # added to `run` when the container is created
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from agent_core.config_values import choice, string, strings
from agent_core.errors import ConfigError

ENGINES = ("podman", "docker")


class ExecutionSettings(NamedTuple):
    backend: str = "local"
    engine: str | None = None  # None: the first of ENGINES installed
    image: str | None = None
    dockerfile: Path | None = None
    network: str = "none"
    engine_options: tuple[str, ...] = ()
    run_options: tuple[str, ...] = ()


def read_execution(section: dict[str, Any]) -> ExecutionSettings:
    backend = choice(section, "backend", ("local", "container")) or "local"
    image = string(section, "image")
    dockerfile = string(section, "dockerfile")
    if image and dockerfile:
        raise ConfigError("config.toml: [execution] takes image or dockerfile, not both")
    if dockerfile is not None and not Path(dockerfile).expanduser().is_absolute():
        raise ConfigError(
            f"config.toml: [execution] dockerfile must be an absolute path, not {dockerfile!r}"
        )
    if backend == "container" and not (image or dockerfile):
        raise ConfigError(
            'config.toml: [execution] backend = "container" needs image = "<name>" '
            'or dockerfile = "/path/to/Dockerfile"'
        )
    network = string(section, "network") or "none"
    if not network.replace("-", "").replace(":", "").replace("_", "").isalnum():
        raise ConfigError(f"config.toml: [execution] network {network!r} is not a network name")
    return ExecutionSettings(
        backend=backend,
        engine=choice(section, "engine", ENGINES),
        image=image,
        dockerfile=Path(dockerfile).expanduser() if dockerfile else None,
        network=network,
        engine_options=tuple(strings(section, "engine_options")),
        run_options=tuple(strings(section, "run_options")),
    )
