"""Hooks without a session: config.toml's ``[[hooks.<event>]]`` read (every error names its
table and key, and costs only that hook), the command lines they run, the JSON they read, and
one hook's process (stdin, stdout and stderr apart, a timeout that kills its group)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from agent_core.config import load_settings
from agent_core.hooks import payload
from agent_core.hooks.process import run_hook_process
from agent_core.hooks.settings import DEFAULT_TIMEOUT, HookSettings, HookSpec, read_hooks
from tests.support.processes import wait_dead


def read(text: str) -> HookSettings:
    return read_hooks(tomllib.loads(text).get("hooks", {}))


def test_every_event_is_read_in_order_with_its_defaults() -> None:
    hooks = read(
        """
        [[hooks.before_tool]]
        command = "./guard"
        tools = ["terminal"]
        [[hooks.after_edit]]
        command = ["ruff", "format"]
        name = "ruff"
        timeout = 5
        [[hooks.after_tool]]
        command = "true"
        [[hooks.prompt_submitted]]
        command = "date"
        [[hooks.turn_ended]]
        command = "notify-send done"
        """
    )
    assert hooks.problems == ()
    guard, ruff, after, prompt, ended = hooks.hooks
    assert guard == HookSpec("before_tool", "./guard", "./guard", ("terminal",), DEFAULT_TIMEOUT)
    assert ruff == HookSpec("after_edit", "ruff", ("ruff", "format"), (), 5.0)
    assert (after.event, prompt.event, ended.name) == (
        "after_tool",
        "prompt_submitted",
        "notify-send done",
    )
    assert hooks.of("before_tool", "terminal") == (guard,)
    assert hooks.of("before_tool", "edit_file") == ()
    assert hooks.of("after_edit", "write_file") == (ruff,)  # no tools: every tool


@pytest.mark.parametrize(
    ("toml", "problem"),
    [
        ('hooks = "x"', "config.toml: [hooks] must be a table"),
        (
            "[hooks]\nbefore_tool = 3",
            "config.toml: hooks.before_tool must be written [[hooks.before_tool]]",
        ),
        ("[[hooks.before_edit]]\ncommand = 'x'", "config.toml: [hooks] has no event 'before_edit'"),
        (
            "[[hooks.after_edit]]\nname = 'fmt'",
            "config.toml: [[hooks.after_edit]] #1: command must be",
        ),
        (
            "[[hooks.after_edit]]\ncommand = ''",
            "config.toml: [[hooks.after_edit]] #1: command must be",
        ),
        (
            "[[hooks.after_edit]]\ncommand = ['ruff', 3]",
            "[[hooks.after_edit]] #1: command must be a list of strings",
        ),
        (
            "[[hooks.after_tool]]\ncommand = 'x'\ntimeout = 0",
            "[[hooks.after_tool]] #1: timeout must be a number >= 0.1, not 0",
        ),
        (
            "[[hooks.after_tool]]\ncommand = 'x'\ntimeout = 601",
            "[[hooks.after_tool]] #1: timeout must be at most 600 seconds",
        ),
        (
            "[[hooks.after_tool]]\ncommand = 'x'\ntools = 'terminal'",
            "[[hooks.after_tool]] #1: tools must be a list of strings",
        ),
        (
            "[[hooks.turn_ended]]\ncommand = 'x'\ntools = ['terminal']",
            "[[hooks.turn_ended]] #1: tools applies only to before_tool",
        ),
        (
            "[[hooks.after_tool]]\ncommand = 'x'\nname = 3",
            "[[hooks.after_tool]] #1: name must be a string, not int",
        ),
        (
            "[[hooks.after_tool]]\ncommand = 'x'\ntimout = 3",
            "[[hooks.after_tool]] #1: unknown key 'timout'",
        ),
    ],
)
def test_a_wrong_hook_is_left_out_with_a_problem_naming_its_table_and_key(
    toml: str, problem: str
) -> None:
    hooks = read(toml)
    assert hooks.hooks == ()
    [said] = hooks.problems
    assert said.startswith("config.toml: ") and problem.removeprefix("config.toml: ") in said


def test_a_wrong_hook_costs_neither_the_other_hooks_nor_the_rest_of_the_file(
    tmp_path: Path,
) -> None:
    (tmp_path / "config.toml").write_text(
        'model = "scripted:echo"\n'
        "[[hooks.after_tool]]\ncommand = 'ok'\n"
        "[[hooks.after_tool]]\ncommand = 'bad'\ntimeout = -1\n"
        "[[hooks.after_tool]]\ncommand = 'also ok'\n"
    )
    settings = load_settings({"HERON_HOME": str(tmp_path)})
    assert settings.model == "scripted:echo"
    assert [h.name for h in settings.hooks.hooks] == ["ok", "also ok"]
    assert settings.hooks.problems == (
        "config.toml: [[hooks.after_tool]] #2: timeout must be a number >= 0.1, not -1",
    )


def test_a_shell_command_gets_the_paths_as_its_arguments_and_a_list_gets_them_appended() -> None:
    shell = HookSpec("after_edit", "fmt", 'ruff format "$@"')
    assert shell.argv(("/w/a.py",)) == [
        "/bin/sh",
        "-c",
        'ruff format "$@"',
        "heron-hook",
        "/w/a.py",
    ]
    argv = HookSpec("after_edit", "fmt", ("ruff", "format"))
    assert argv.argv(("/w/a.py",)) == ["ruff", "format", "/w/a.py"]


def test_a_long_command_is_named_by_its_start() -> None:
    [hook] = read(f"[[hooks.after_tool]]\ncommand = 'echo {'x' * 80}'").hooks
    assert hook.name.startswith("echo xxx") and len(hook.name) == 40


def test_the_payload_has_the_documented_fields() -> None:
    where = payload.Where("s-1", Path("/w"), "ask")
    details = payload.tool_result("terminal", {"command": "ls"}, "a\nb", False)
    data = json.loads(payload.encode("after_tool", "log", where, details))
    assert data == {
        "event": "after_tool",
        "hook": "log",
        "session_id": "s-1",
        "workspace_root": "/w",
        "mode": "ask",
        "tool_name": "terminal",
        "arguments": {"command": "ls"},
        "result": "a\nb",
        "is_error": False,
    }
    edited = payload.edited("edit_file", {}, [Path("/w/a.py")])
    assert edited["paths"] == ["/w/a.py"]
    assert payload.prompt("hi") == {"prompt": "hi"}
    assert payload.turn("end_turn") == {"stop_reason": "end_turn"}


@pytest.mark.anyio
async def test_a_hook_reads_its_stdin_and_its_streams_come_back_apart(tmp_path: Path) -> None:
    script = 'read -r line; echo "out:$line"; echo "err:$PWD" >&2; exit 2'
    run = await run_hook_process(
        ["/bin/sh", "-c", script], b"{}\n", cwd=tmp_path, environment={}, timeout=10
    )
    assert (run.exit_code, run.stdout, run.stderr) == (2, "out:{}\n", f"err:{tmp_path}\n")
    assert not run.timed_out


@pytest.mark.anyio
async def test_a_hook_past_its_timeout_is_killed_with_what_it_started(tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    script = f"sleep 60 & echo $! > {marker}; echo started; wait"
    run = await run_hook_process(
        ["/bin/sh", "-c", script], b"", cwd=tmp_path, environment={}, timeout=1
    )
    assert run.timed_out and run.exit_code is None and run.stdout == "started\n"
    # The group was sent its signals; the child's death, and its reaping, follow them.
    assert wait_dead([int(marker.read_text())], timeout=5) == []
