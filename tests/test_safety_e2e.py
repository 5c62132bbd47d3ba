"""Safety end to end, through `heron acp` on real stdio: commands in the real sandbox, the
questions the editor is asked (and the ones it is not), hostile repositories, plan mode, and
secrets kept out of what Heron writes down."""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.editor import FakeEditor
from tests.support.mcp_sessions import stdio
from tests.support.permissions import asked_because, full_access, questions
from tests.support.processes import running_sleeps, sleep_marker, sleepers, wait_dead
from tests.support.sandbox import END_TO_END_SANDBOX
from tests.support.scripted_model import call, scripted
from tests.support.updates import final, tool_updates

pytestmark = END_TO_END_SANDBOX


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----PRIVATE KEY-----\n")
    return home


@pytest.fixture
def env(agent_env: dict[str, str], home: Path) -> dict[str, str]:
    return {**agent_env, "HOME": str(home), "ANTHROPIC_API_KEY": "sk-ant-e2e-0123456789abcdef"}


def output_of(updates: list[dict[str, Any]], name: str = "terminal") -> str:
    [updates_of_call] = tool_updates(updates, name).values()
    return str(final(updates_of_call)["rawOutput"]["output"])


@pytest.mark.parametrize("terminal", [False, True], ids=["local", "editor-terminal"])
def test_a_write_outside_the_workspace_is_stopped_and_offered_once_to_run_outside(
    env: dict[str, str], workspace: Path, tmp_path: Path, terminal: bool
) -> None:
    outside = Path(f"/var/tmp/heron-e2e-{os.getpid()}-{terminal}")  # /tmp is the sandbox's own
    command = f"echo made > {outside}"
    for answer, made in (("reject_once", False), ("allow_once", True)):
        scripted_env = scripted(env, tmp_path, call("terminal", command=command))
        with FakeEditor(scripted_env, terminal=terminal) as editor:
            session_id = full_access(editor, workspace)
            editor.answers.append(answer)
            _, updates = editor.prompt(session_id, "write it")
        [question] = questions(editor)  # nothing asked before it ran: full access
        assert question["toolCall"]["title"] == f"Run `{command}` outside the sandbox?"
        assert str(outside) in asked_because(question)
        assert [o["kind"] for o in question["options"]] == ["allow_once", "reject_once"]
        assert outside.exists() == made
        if not made:
            assert "The sandbox stopped it" in output_of(updates)
    outside.unlink()


def test_the_editor_runs_the_sandbox_launcher_without_herons_secrets(
    env: dict[str, str], workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", "editor-knows-it")  # the editor's environment has it too
    monkeypatch.setenv("HOME", env["HOME"])
    env = {**env, "DEPLOY_TOKEN": "editor-knows-it"}
    command = "echo token=$DEPLOY_TOKEN; ls -A ~/.ssh | wc -l; ls /proc | grep -c '^[0-9]'"
    with FakeEditor(scripted(env, tmp_path, call("terminal", command=command))) as editor:
        _, updates = editor.prompt(full_access(editor, workspace), "look")
    [create] = [r["params"] for r in editor.requests if r["method"] == "terminal/create"]
    assert Path(create["command"]).name == "bwrap" and create["args"][-2:] == ["-c", command]
    token, ssh_entries, processes = output_of(updates).splitlines()[-3:]
    assert token == "token=" and ssh_entries == "0" and int(processes) <= 5


def test_credentials_and_herons_own_environment_are_out_of_reach(
    env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    command = "grep -l sk-ant-e2e /proc/*/environ; ls /proc | grep -c '^[0-9]'; cat ~/.ssh/id_rsa"
    scripted_env = scripted(env, tmp_path, call("terminal", command=command))
    with FakeEditor(scripted_env, terminal=False) as editor:
        editor.answers.extend(["allow_once", "reject_once"])  # run it; keep it in the sandbox
        _, updates = editor.prompt(full_access(editor, workspace), "steal")
    first, second = questions(editor)
    assert "reads credentials" in asked_because(first)  # asks even in full access
    assert "~/.ssh, which the sandbox hides" in asked_because(second)
    output = output_of(updates)
    assert "PRIVATE KEY" not in output and "environ" not in output  # no process has the key
    [count] = [line for line in output.splitlines() if line.isdigit()]
    assert int(count) <= 5  # Heron and the rest of the machine are not there


def test_a_command_started_by_a_command_dies_when_heron_is_killed(
    env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    marker = sleep_marker(53)
    command = f"sleep {marker} & sleep {marker}"
    scripted_env = scripted(env, tmp_path, call("terminal", command=command, background=True))
    with FakeEditor(scripted_env, terminal=False) as editor:
        editor.prompt(full_access(editor, workspace), "start it")
        deadline = time.monotonic() + 10
        while len(running_sleeps(marker)) < 2:  # past the sandbox's set-up (see ports/groups)
            assert time.monotonic() < deadline
            time.sleep(0.05)
        pids = sleepers(marker)
        os.kill(editor.proc.pid, signal.SIGKILL)
        assert wait_dead(pids, timeout=15) == []


def test_a_hostile_repository_runs_nothing_when_a_session_opens_on_it(
    env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    import subprocess

    sentinels = tmp_path / "ran"
    sentinels.mkdir()
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=a"]
    subprocess.run([*git, "init", "-q"], cwd=workspace, check=True)
    (workspace / ".gitattributes").write_text("*.txt filter=evil diff=evil\n")
    (workspace / "a.txt").write_text("a\n")
    subprocess.run([*git, "add", "."], cwd=workspace, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=workspace, check=True)
    hook = workspace / ".git" / "hooks" / "post-index-change"
    hook.write_text(f"#!/bin/sh\ntouch {sentinels}/hook\n")
    hook.chmod(0o755)
    with (workspace / ".git" / "config").open("a") as config:
        config.write(
            f'[core]\n\tfsmonitor = "touch {sentinels}/fsmonitor; false"\n'
            f'\tpager = "touch {sentinels}/pager; cat"\n'
            f'[filter "evil"]\n\tclean = "touch {sentinels}/clean; cat"\n\trequired = true\n'
            f'[diff "evil"]\n\ttextconv = "touch {sentinels}/textconv; cat"\n'
            f'[diff]\n\texternal = "touch {sentinels}/external"\n'
        )
    os.utime(workspace / "a.txt", (1, 1))  # stat-dirty: git would run the clean filter
    for mode in ("plan", "ask", "full-access"):
        with FakeEditor({**env, "HERON_MODE": mode}) as editor:
            stop, _ = editor.prompt(editor.start_session(workspace), "hello")
        assert stop == "end_turn"
    assert sorted(p.name for p in sentinels.iterdir()) == []


def test_plan_mode_never_writes_whatever_the_user_answers(
    env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    original = tmp_path / "original.txt"
    original.write_text("original\n")
    os.link(original, workspace / "linked.txt")
    (workspace / "src").mkdir()
    calls = [
        call("write_file", path="new.txt", content="x"),
        call("write_file", path=str(outside), content="x"),
        call("write_file", path=".env", content="X=1"),
        call("read_file", path="linked.txt"),
        call("edit_file", path="linked.txt", edits=[{"old_string": "original", "new_string": "x"}]),
        call("terminal", command="touch made.txt"),
        call("terminal", command="rm -rf src"),
        call("terminal", command="echo x > /var/tmp/heron-plan"),
        call("execute_code", code="open('script.txt', 'w').write('x')"),
    ]
    with FakeEditor(scripted({**env, "HERON_MODE": "plan"}, tmp_path, *calls)) as editor:
        stop, updates = editor.prompt(editor.start_session(workspace), "try everything")
    assert stop == "end_turn"
    assert questions(editor) == []  # refused before anyone is asked: there is nothing to allow
    assert sorted(p.name for p in workspace.iterdir()) == ["README.md", "linked.txt", "src"]
    assert not outside.exists() and original.read_text() == "original\n"
    assert not Path("/var/tmp/heron-plan").exists()
    refused = [
        final(u)["rawOutput"]["output"]
        for u in tool_updates(updates).values()
        if final(u)["status"] == "failed"
    ]
    assert len(refused) == len(calls) - 1 and all("plan mode" in r for r in refused)


@pytest.mark.parametrize("mode", ["ask", "accept-edits", "full-access"])
def test_protected_paths_ask_in_every_mode(
    env: dict[str, str], workspace: Path, tmp_path: Path, mode: str
) -> None:
    scripted_env = scripted(
        {**env, "HERON_MODE": mode},
        tmp_path,
        call("write_file", path=".vscode/tasks.json", content="{}"),
        call("write_file", path=".git/hooks/pre-commit", content="#!/bin/sh\n"),
        call("write_file", path=".env", content="X=1\n"),
    )
    with FakeEditor(scripted_env) as editor:
        editor.initialize()
        editor.answers.extend(["reject_once"] * 3)
        editor.prompt(editor.new_session(workspace), "configure")
    reasons = [asked_because(q) for q in questions(editor)]
    assert [r.split(" is protected")[0] for r in reasons] == [
        "Asking because .vscode",
        "Asking because .git",
        "Asking because .env",
    ]
    assert all(len(q["options"]) == 2 for q in questions(editor))  # no "always" for these
    assert sorted(p.name for p in workspace.iterdir()) == ["README.md"]


def test_a_hard_link_to_a_file_outside_asks_like_the_file_outside(
    env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    original = tmp_path / "original.txt"
    original.write_text("original\n")
    os.link(original, workspace / "linked.txt")
    scripted_env = scripted(
        env,
        tmp_path,
        call("read_file", path="linked.txt"),
        call("edit_file", path="linked.txt", edits=[{"old_string": "original", "new_string": "x"}]),
    )
    with FakeEditor(scripted_env) as editor:
        editor.answers.append("reject_once")
        editor.prompt(full_access(editor, workspace), "edit it")
    [question] = questions(editor)
    assert "hard links, possibly outside the workspace" in asked_because(question)
    assert original.read_text() == "original\n"


def test_without_a_sandbox_commands_ask_and_the_editor_is_told(
    env: dict[str, str], workspace: Path, tmp_path: Path, heron_home: Path
) -> None:
    (heron_home / "config.toml").write_text("[sandbox]\nenabled = false\n")
    scripted_env = scripted(env, tmp_path, call("terminal", command="touch made.txt"))
    with FakeEditor(scripted_env, terminal=False) as editor:
        editor.initialize()
        created = editor.request("session/new", {"cwd": str(workspace), "mcpServers": []})["result"]
        session_id = created["sessionId"]
        editor.request("session/set_mode", {"sessionId": session_id, "modeId": "full-access"})
        editor.answers.append("reject_once")
        _, updates = editor.prompt(session_id, "touch")
    descriptions = [m["description"] for m in created["modes"]["availableModes"]]
    assert all("no sandbox (it is turned off" in d for d in descriptions)
    [question] = questions(editor)
    assert "there is no sandbox here" in asked_because(question)
    notices = [u for u in updates if "Commands run without a sandbox" in str(u)]
    assert notices and not (workspace / "made.txt").exists()
    (heron_home / "config.toml").write_text("[sandbox]\nenabled = false\nrequired = false\n")
    with FakeEditor(scripted_env, terminal=False) as editor:
        editor.prompt(full_access(editor, workspace), "touch")
    assert questions(editor) == [] and (workspace / "made.txt").exists()


def test_the_mode_list_says_commands_run_in_a_sandbox(env: dict[str, str], workspace: Path) -> None:
    with FakeEditor(env) as editor:
        editor.initialize()
        created = editor.request("session/new", {"cwd": str(workspace), "mcpServers": []})["result"]
    for mode in created["modes"]["availableModes"]:
        assert "commands run in a sandbox (bubblewrap" in mode["description"]


def test_secrets_never_reach_the_session_store_or_the_logs(
    env: dict[str, str], workspace: Path, tmp_path: Path, heron_home: Path
) -> None:
    password = "hunter2-e2e-password"
    env = {**env, "DATABASE_URL": f"postgres://app:{password}@db/app", "HERON_TRACE": "1"}
    (workspace / "settings.txt").write_text(f"url = postgres://app:{password}@db/app\n")
    (workspace / "key.txt").write_text("key = sk-ant-e2e-0123456789abcdef\n")
    scripted_env = scripted(
        env, tmp_path, call("read_file", path="settings.txt"), call("read_file", path="key.txt")
    )
    with FakeEditor(scripted_env) as editor:
        _, updates = editor.prompt(editor.start_session(workspace), "read them")
        assert editor.close() == 0
    assert password in str(updates)  # the editor was shown the file as it is
    stored = b"".join(
        str(row).encode()
        for table in ("messages", "transcript")
        for row in sqlite3.connect(heron_home / "sessions.db").execute(f"SELECT body FROM {table}")
    )
    assert b"[REDACTED:DATABASE_URL]" in stored and b"[REDACTED:ANTHROPIC_API_KEY]" in stored
    for written in (stored, (heron_home / "logs" / "heron.log").read_bytes(), editor.stderr):
        assert password.encode() not in written and b"sk-ant-e2e" not in written


@pytest.mark.parametrize("confined", [False, True])
def test_stdio_mcp_servers_run_in_the_sandbox_when_configured(
    env: dict[str, str], workspace: Path, tmp_path: Path, heron_home: Path, confined: bool
) -> None:

    if confined:
        (heron_home / "config.toml").write_text("[sandbox]\nmcp_servers = true\n")
    scripted_env = scripted(env, tmp_path, call("mcp__tools__look", path="~/.ssh/id_rsa"))
    with FakeEditor(scripted_env) as editor:
        editor.initialize()
        params = {"cwd": str(workspace), "mcpServers": [stdio("tools")]}
        session_id = editor.request("session/new", params)["result"]["sessionId"]
        editor.request("session/set_mode", {"sessionId": session_id, "modeId": "full-access"})
        _, updates = editor.prompt(session_id, "look")
    assert output_of(updates, "mcp__tools__look") == ("missing" if confined else "present")
