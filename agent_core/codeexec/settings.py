"""``[code_execution]`` in config.toml: read by ``agent_core.config``, obeyed by ``runner`` and
the ``execute_code`` tool. Its own module because config is on the start-up path and must not
load the runner."""

from __future__ import annotations

from typing import Any, NamedTuple

from agent_core.config_values import choice, number


class CodeExecutionSettings(NamedTuple):
    """``[code_execution]``: how ``execute_code`` runs scripts."""

    mode: str = "project"  # project: the workspace and its Python; strict: a temp dir, Heron's
    timeout: float = 300.0
    grace: float = 5.0
    max_output: int = 50_000
    max_stderr: int = 10_000
    max_tool_calls: int = 50


def read_code_execution(section: dict[str, Any]) -> CodeExecutionSettings:
    defaults = CodeExecutionSettings()
    return CodeExecutionSettings(
        mode=choice(section, "mode", ("project", "strict")) or defaults.mode,
        timeout=number(section, "timeout", defaults.timeout, minimum=0.1),
        grace=number(section, "grace", defaults.grace, minimum=0),
        max_output=int(number(section, "max_output", defaults.max_output, minimum=1)),
        max_stderr=int(number(section, "max_stderr", defaults.max_stderr, minimum=0)),
        max_tool_calls=int(number(section, "max_tool_calls", defaults.max_tool_calls, minimum=0)),
    )
