"""A session's tools as the model has them now: all of them, less those switched off
(``[tools]`` in config.toml, everywhere or in the session's mode; ``agent_core.tool_switches``).

A live view, not a copy: the mode changes during a session, and with it the tool list of the
next request, what ``execute_code``'s scripts may call and what a subagent may be given. A
call to a tool switched off is refused as a call to an unknown tool.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from agent_core.tools.base import Tool


class SwitchedTools(Mapping[str, Tool]):
    def __init__(self, tools: Mapping[str, Tool], off: Callable[[], frozenset[str]]) -> None:
        self._tools = tools
        self._off = off  # the names switched off now

    def __getitem__(self, name: str) -> Tool:
        if name in self._off():
            raise KeyError(name)
        return self._tools[name]

    def __iter__(self) -> Iterator[str]:
        off = self._off()
        return iter([name for name in self._tools if name not in off])

    def __len__(self) -> int:
        off = self._off()
        return sum(name not in off for name in self._tools)
