"""``[[hooks.<event>]]`` in config.toml: read by ``agent_core.config``, obeyed by
``agent_core.hooks``. Its own module because config is on the start-up path.

Only the user's own ``$HERON_HOME/config.toml`` is read for hooks: a workspace is untrusted
input, and a hook runs a command. A hook table that is wrong is left out and its problem kept
(``HookSettings.problems``, told in the editor and by ``heron doctor``): a typo in one hook
costs neither the other hooks nor the rest of the settings.
"""

from __future__ import annotations

from typing import Any, NamedTuple, cast

from agent_core.config_values import number, string, strings
from agent_core.errors import ConfigError

TOOL_EVENTS = ("before_tool", "after_tool", "after_edit")
EVENTS = (*TOOL_EVENTS, "prompt_submitted", "turn_ended")
KEYS = ("command", "tools", "timeout", "name")
DEFAULT_TIMEOUT = 30.0  # seconds
MAX_TIMEOUT = 600.0
SHELL = "/bin/sh"
NAME_CHARS = 40


class HookSpec(NamedTuple):
    """One hook: its event, the name the user sees, and the command line it runs."""

    event: str  # one of EVENTS
    name: str
    command: str | tuple[str, ...]  # a string runs through /bin/sh -c; a list is the argv
    tools: tuple[str, ...] = ()  # the tools it applies to (tool events); empty: every tool
    timeout: float = DEFAULT_TIMEOUT

    def applies_to(self, tool: str | None) -> bool:
        return tool is None or not self.tools or tool in self.tools

    def argv(self, arguments: tuple[str, ...] = ()) -> list[str]:
        """Its command line, ``arguments`` (after_edit's paths) after it: ``"$@"`` in a shell
        command, appended to a list."""
        if isinstance(self.command, str):
            return [SHELL, "-c", self.command, "heron-hook", *arguments]
        return [*self.command, *arguments]


class HookSettings(NamedTuple):
    """``[hooks]``: the hooks in the order written, and what was wrong with the rest."""

    hooks: tuple[HookSpec, ...] = ()
    problems: tuple[str, ...] = ()

    def of(self, event: str, tool: str | None = None) -> tuple[HookSpec, ...]:
        return tuple(h for h in self.hooks if h.event == event and h.applies_to(tool))


def read_hooks(section: Any) -> HookSettings:
    """``[[hooks.before_tool]]`` ... ``[[hooks.turn_ended]]``: arrays of tables with
    ``command`` (a string or a list of strings), optional ``tools``, ``timeout`` and ``name``."""
    if not isinstance(section, dict):
        return HookSettings(problems=("config.toml: [hooks] must be a table",))
    hooks: list[HookSpec] = []
    problems: list[str] = []
    for event, entries in cast(dict[str, Any], section).items():
        if event not in EVENTS:
            problems.append(f"config.toml: [hooks] has no event {event!r}: use {', '.join(EVENTS)}")
            continue
        if not isinstance(entries, list):
            problems.append(f"config.toml: hooks.{event} must be written [[hooks.{event}]]")
            continue
        for position, entry in enumerate(cast(list[Any], entries), 1):
            label = f"[[hooks.{event}]] #{position}"
            try:
                hooks.append(_hook(event, entry, label))
            except ConfigError as exc:
                problems.append(f"config.toml: {label}: {str(exc).removeprefix('config.toml: ')}")
    return HookSettings(tuple(hooks), tuple(problems))


def _hook(event: str, entry: Any, label: str) -> HookSpec:
    if not isinstance(entry, dict):
        raise ConfigError("config.toml: must be a table")
    table = cast(dict[str, Any], entry)
    if unknown := sorted(set(table) - set(KEYS)):
        raise ConfigError(f"config.toml: unknown key {unknown[0]!r}: use {', '.join(KEYS)}")
    command = _command(table)
    if "tools" in table and event not in TOOL_EVENTS:
        raise ConfigError(f"config.toml: tools applies only to {', '.join(TOOL_EVENTS)}")
    timeout = number(table, "timeout", DEFAULT_TIMEOUT, minimum=0.1)
    if timeout > MAX_TIMEOUT:
        raise ConfigError(f"config.toml: timeout must be at most {MAX_TIMEOUT:g} seconds")
    name = string(table, "name") or _name_of(command)
    return HookSpec(event, name, command, tuple(strings(table, "tools")), timeout)


def _command(table: dict[str, Any]) -> str | tuple[str, ...]:
    value = table.get("command")
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, list) and value:
        argv = strings(table, "command")
        if all(argv):
            return tuple(argv)
    raise ConfigError(
        "config.toml: command must be a shell command or a list of program and arguments"
    )


def _name_of(command: str | tuple[str, ...]) -> str:
    text = " ".join(command.split() if isinstance(command, str) else command)
    return text if len(text) <= NAME_CHARS else f"{text[: NAME_CHARS - 1]}…"
