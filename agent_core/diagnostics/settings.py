"""``[diagnostics]`` in config.toml: read by ``agent_core.config``, obeyed by the pool, the
launcher and the edit tools. Its own module because config is on the start-up path and must not
load the language server client.

``LaunchSettings`` is what ``launching.launcher_for`` reads of the settings:
``agent_core.config.Settings`` has it, and this package does not import config.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple, Protocol

from agent_core.config_values import number, strings, table
from agent_core.diagnostics.servers import LanguageServerSpec
from agent_core.errors import ConfigError
from agent_core.safety.sandbox.settings import SandboxSettings


class DiagnosticsSettings(NamedTuple):
    """``[diagnostics]``: what edited files' language servers say, added to the edit's result."""

    enabled: bool = True
    warnings: bool = False  # new warnings too, not only new errors
    wait: float = 1.5  # seconds an edit's result waits for diagnostics from a running server
    first_wait: float = 8.0  # the same, when the server must start first
    max_shown: int = 20  # diagnostics listed per file
    servers: tuple[LanguageServerSpec, ...] = ()  # [diagnostics.servers.<name>]
    # Servers run in the sandbox (workspace read-only, no network); these names, from the user's
    # own config.toml, run outside it (confined = false) or keep the network (network = true).
    unconfined: frozenset[str] = frozenset()
    networked: frozenset[str] = frozenset()


class LaunchSettings(Protocol):
    """Heron's home, the sandbox and the servers' exceptions to it."""

    @property
    def home(self) -> Path: ...
    @property
    def sandbox(self) -> SandboxSettings: ...
    @property
    def diagnostics(self) -> DiagnosticsSettings: ...


def read_diagnostics(section: dict[str, Any]) -> DiagnosticsSettings:
    defaults = DiagnosticsSettings()
    flags = {key: section.get(key, getattr(defaults, key)) for key in ("enabled", "warnings")}
    if not all(isinstance(value, bool) for value in flags.values()):
        raise ConfigError("config.toml: [diagnostics] enabled and warnings must be true or false")
    servers: list[LanguageServerSpec] = []
    exceptions: dict[str, set[str]] = {"confined": set(), "network": set()}
    listed = table(section, "servers", "[diagnostics.servers]")
    for name in listed:
        label = f"[diagnostics.servers.{name}]"
        server = table(listed, name, label)
        for key, names in exceptions.items():  # confined = false; network = true
            value = server.get(key, key == "confined")
            if not isinstance(value, bool):
                raise ConfigError(f"config.toml: {label} {key} must be true or false")
            if value != (key == "confined"):
                names.add(name)
        command, extensions = strings(server, "command"), strings(server, "extensions")
        if not command and not extensions:
            continue  # only how a default server of this name runs
        if not command or not extensions:
            raise ConfigError(f"config.toml: {label} needs command and extensions")
        dotted = frozenset(e if e.startswith(".") else f".{e}" for e in extensions)
        servers.append(LanguageServerSpec(name, tuple(command), dotted))
    return DiagnosticsSettings(
        enabled=flags["enabled"],
        warnings=flags["warnings"],
        wait=number(section, "wait", defaults.wait, minimum=0.05),
        first_wait=number(section, "first_wait", defaults.first_wait, minimum=0.05),
        max_shown=int(number(section, "max_shown", defaults.max_shown, minimum=1)),
        servers=tuple(servers),
        unconfined=frozenset(exceptions["confined"]),
        networked=frozenset(exceptions["network"]),
    )
