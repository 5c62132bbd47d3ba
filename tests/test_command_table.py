"""Heron's own slash commands: one row each, listed and run."""

from __future__ import annotations


def test_every_built_in_command_has_one_row_saying_what_it_does() -> None:
    """The commands every front end lists, and what the editor's sessions do for each: the
    same names, so a command is never listed without running, or run without being listed."""
    from acp_server.handlers.commands import BUILTINS as RUNS
    from agent_core.context.commands import BUILTINS as LISTED

    assert list(RUNS) == list(LISTED)
