"""``[memory]`` in config.toml: read by ``agent_core.config``, obeyed by ``memory.notes``. Its
own module because config is on the start-up path and must not load the memory's screens."""

from __future__ import annotations

from typing import Any, NamedTuple

from agent_core.config_values import number
from agent_core.errors import ConfigError


class MemorySettings(NamedTuple):
    """``[memory]``: the notes the agent keeps across sessions (``agent_core.memory.notes``)."""

    enabled: bool = True
    notes_chars: int = 4000  # notes.md: what it learned about its work
    user_chars: int = 2000  # user.md: what it learned about the user


def read_memory(section: dict[str, Any]) -> MemorySettings:
    defaults = MemorySettings()
    enabled = section.get("enabled", defaults.enabled)
    if not isinstance(enabled, bool):
        raise ConfigError("config.toml: [memory] enabled must be true or false")
    return MemorySettings(
        enabled=enabled,
        notes_chars=int(number(section, "notes_chars", defaults.notes_chars, minimum=100)),
        user_chars=int(number(section, "user_chars", defaults.user_chars, minimum=100)),
    )
