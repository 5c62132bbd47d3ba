"""``[checkpoints]`` in config.toml: read by ``agent_core.config``, obeyed by ``session``. Its own
module because config is on the start-up path and must not load the shadow repository."""

from __future__ import annotations

from typing import Any, NamedTuple

from agent_core.config_values import number
from agent_core.errors import ConfigError


class CheckpointSettings(NamedTuple):
    """``[checkpoints]``: the workspace snapshots taken before a turn's first change."""

    enabled: bool = True
    max_file_size: int = 10 * 1024 * 1024  # bytes; a larger file is not kept (a notice says so)
    max_files: int = 50_000  # more files than this: the rest are not kept (a notice says so)
    keep_days: float = 30.0  # older checkpoints are pruned
    max_total_mb: float = 2048.0  # the shadow repository's size beyond which the oldest go


def read_checkpoints(section: dict[str, Any]) -> CheckpointSettings:
    defaults = CheckpointSettings()
    enabled = section.get("enabled", defaults.enabled)
    if not isinstance(enabled, bool):
        raise ConfigError("config.toml: [checkpoints] enabled must be true or false")
    return CheckpointSettings(
        enabled=enabled,
        max_file_size=int(number(section, "max_file_size", defaults.max_file_size, minimum=0)),
        max_files=int(number(section, "max_files", defaults.max_files, minimum=1)),
        keep_days=number(section, "keep_days", defaults.keep_days, minimum=0),
        max_total_mb=number(section, "max_total_mb", defaults.max_total_mb, minimum=1),
    )
