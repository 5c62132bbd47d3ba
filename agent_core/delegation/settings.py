"""``[delegation]`` in config.toml: read by ``agent_core.config``, obeyed by the ``delegate``
tool. Its own module because config is on the start-up path and must not load the tool."""

from __future__ import annotations

from typing import Any, NamedTuple

from agent_core.config_values import number


class DelegationSettings(NamedTuple):
    """``[delegation]``: the subagents the ``delegate`` tool starts."""

    max_requests: int = 50  # model requests in one subagent's task
    max_parallel: int = 3  # read-only subagents running at once (writing ones run alone)
    max_depth: int = 1  # 1: subagents do not delegate further


def read_delegation(section: dict[str, Any]) -> DelegationSettings:
    defaults = DelegationSettings()
    return DelegationSettings(
        max_requests=int(number(section, "max_requests", defaults.max_requests, minimum=1)),
        max_parallel=int(number(section, "max_parallel", defaults.max_parallel, minimum=1)),
        max_depth=int(number(section, "max_depth", defaults.max_depth, minimum=0)),
    )
