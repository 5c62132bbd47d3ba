"""The sandbox, with real commands under real bubblewrap: what it lets through, what it refuses,
and how it says so. (Through `heron acp` end to end: test_safety_e2e.py.)"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from msgspec.structs import replace

from agent_core.safety.sandbox.confinement import Confinement, Launch
from agent_core.safety.sandbox.detect import Availability
from agent_core.safety.sandbox.policy import SandboxPolicy
from agent_core.safety.sandbox.seatbelt import SANDBOX_EXEC, Seatbelt, profile_for
from agent_core.safety.sandbox.settings import SandboxSettings
from agent_core.safety.sandbox.tether import tethered
from tests.support.sandbox import require_bubblewrap

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="bubblewrap is Linux's sandbox")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY\n")
    (home / ".netrc").write_text("machine x password p\n")
    (home / ".cache").mkdir()
    return home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "workspace"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    (root / ".env").write_text("TOKEN=x\n")
    (root / "src").mkdir()
    return root


def confinement(
    workspace: Path, home: Path, tmp_path: Path, **settings: object
) -> Iterator[Confinement]:
    sandbox = Confinement(
        require_bubblewrap() if settings.get("network") != "deny" else _deny(),
        SandboxSettings(**settings),  # type: ignore[arg-type]
        (workspace,),
        home=home,
        heron_home=tmp_path / "heron-home",
        scrubbed=("SECRET_TOKEN",),
    )
    yield sandbox
    sandbox.close()


def _deny() -> Availability:
    from agent_core.safety.sandbox.detect import detect

    availability = detect(network=False)
    assert availability.mechanism is not None, availability.problem
    return availability


@pytest.fixture
def sandbox(workspace: Path, home: Path, tmp_path: Path) -> Iterator[Confinement]:
    yield from confinement(workspace, home, tmp_path)


def run(
    sandbox: Confinement, command: str, cwd: Path, *, writable: bool = True
) -> subprocess.CompletedProcess[str]:
    launch = sandbox.launch(["/bin/sh", "-c", command], writable=writable)
    try:
        home = cwd.parent / "home"
        env = {**os.environ, "SECRET_TOKEN": "tok-123", "HOME": str(home)}
        return subprocess.run(
            launch.argv, cwd=cwd, capture_output=True, text=True, timeout=30, env=env
        )
    finally:
        sandbox.release(launch)


def test_the_workspace_and_the_private_temp_are_writable(
    sandbox: Confinement, workspace: Path, home: Path
) -> None:
    done = run(
        sandbox,
        "echo hi > src/new.txt && echo t > /tmp/heron-private-probe && cat /tmp/heron-private-probe && touch ~/.cache/x",
        workspace,
    )
    assert done.returncode == 0, done.stderr
    assert (workspace / "src" / "new.txt").read_text() == "hi\n"
    assert (home / ".cache" / "x").exists()
    assert not Path("/tmp/heron-private-probe").exists()


def test_a_write_outside_the_roots_fails_with_a_clear_refusal(
    sandbox: Confinement, workspace: Path, home: Path
) -> None:
    outside = Path(f"/var/tmp/heron-outside-{os.getpid()}")  # not under /tmp: that is private
    done = run(sandbox, f"echo x > {outside}", workspace)
    assert done.returncode != 0 and "Read-only file system" in done.stderr
    assert not outside.exists()
    refusal = sandbox.refusal(done.stderr)
    assert refusal is not None and str(outside) in refusal and "workspace" in refusal


def test_plan_mode_runs_commands_on_a_read_only_file_system(
    sandbox: Confinement, workspace: Path
) -> None:
    done = run(sandbox, "ls src && touch src/plan.txt", workspace, writable=False)
    assert done.returncode != 0 and "Read-only file system" in done.stderr
    assert not (workspace / "src" / "plan.txt").exists()


def test_credential_stores_are_invisible(sandbox: Confinement, workspace: Path, home: Path) -> None:
    done = run(sandbox, "ls -A ~/.ssh; cat ~/.netrc; cat ~/.ssh/id_rsa", workspace)
    assert "id_rsa" not in done.stdout and "PRIVATE KEY" not in done.stdout
    assert "password" not in done.stdout
    assert sandbox.refusal(done.stderr) == "it needs ~/.ssh, which the sandbox hides"


def test_no_other_process_is_visible_and_secrets_are_not_inherited(
    sandbox: Confinement, workspace: Path
) -> None:
    parent = os.getpid()
    done = run(
        sandbox,
        f"ls /proc | grep -c '^[0-9]'; cat /proc/{parent}/environ; echo token=$SECRET_TOKEN",
        workspace,
    )
    count, *rest = done.stdout.splitlines()
    assert int(count) <= 4  # the sandbox's own few processes
    assert "token=" in rest and "tok-123" not in done.stdout
    assert f"/proc/{parent}/environ" in done.stderr  # no such file: that pid is not there


def test_protected_paths_are_read_only_and_cannot_be_renamed_away(
    sandbox: Confinement, workspace: Path
) -> None:
    script = (
        "echo '[core] fsmonitor = evil' >> .git/config; "
        "echo hook > .git/hooks/pre-commit; "
        "mv .git .git-moved; "
        "echo X=1 >> .env; "
        "mkdir -p .vscode && echo '{}' > .vscode/tasks.json; "
        "echo done"
    )
    done = run(sandbox, script, workspace)
    assert "done" in done.stdout
    assert (workspace / ".git" / "config").read_text() == "[core]\n"
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
    assert not (workspace / ".git-moved").exists()
    assert (workspace / ".env").read_text() == "TOKEN=x\n"
    assert not (workspace / ".vscode").exists()  # the stand-in folder is gone again


def test_a_user_folder_put_where_a_stand_in_was_is_kept(
    sandbox: Confinement, workspace: Path
) -> None:
    launch = sandbox.launch(["/bin/true"], writable=True)
    (workspace / ".vscode").mkdir(exist_ok=True)  # the stand-in exists while it runs
    (workspace / ".vscode" / "settings.json").write_text("{}")  # the user writes into it
    sandbox.release(launch)
    assert (workspace / ".vscode" / "settings.json").exists()


def test_root_cannot_remount_its_way_out(sandbox: Confinement, workspace: Path) -> None:
    done = run(sandbox, "mount -o remount,rw,bind .git; echo x >> .git/config", workspace)
    assert (workspace / ".git" / "config").read_text() == "[core]\n"
    assert done.returncode != 0


def test_a_command_started_by_a_command_dies_with_its_parent(
    sandbox: Confinement, workspace: Path
) -> None:
    from tests.support.processes import running_sleeps, sleep_marker, sleepers, wait_dead

    marker = sleep_marker(47)
    launch = sandbox.launch(["/bin/sh", "-c", f"sleep {marker} & sleep {marker}"], writable=True)
    parent = subprocess.Popen(  # stands in for Heron: it dies without cleaning up
        [
            sys.executable,
            "-c",
            "import subprocess, sys; subprocess.Popen(sys.argv[1:]); input()",
            *launch.argv,
        ],
        stdin=subprocess.PIPE,
        cwd=workspace,
    )
    _wait(lambda: len(running_sleeps(marker)) >= 2)  # past the sandbox's set-up
    pids = sleepers(marker)
    parent.kill()
    parent.wait()
    assert parent.stdin is not None
    parent.stdin.close()
    assert wait_dead(pids, timeout=15) == []
    sandbox.release(launch)


def test_network_deny_blocks_even_loopback(workspace: Path, home: Path, tmp_path: Path) -> None:
    accepted: list[object] = []
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        server.settimeout(5)

        def serve() -> None:
            with server.accept()[0] as connection:
                accepted.append(connection)

        threading.Thread(target=serve, daemon=True).start()
        probe = f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 2)\""
        for sandbox in confinement(workspace, home, tmp_path, network="deny"):
            done = run(sandbox, probe, workspace)
            assert done.returncode != 0 and "Connection refused" in done.stderr
            assert sandbox.refusal(done.stderr) == (
                'sandboxed commands have no network ([sandbox] network = "deny")'
            )
        assert accepted == []
        for sandbox in confinement(workspace, home, tmp_path, network="allow"):
            assert run(sandbox, probe, workspace).returncode == 0
        _wait(lambda: accepted)


def test_without_a_sandbox_commands_still_lose_their_secrets(
    workspace: Path, home: Path, tmp_path: Path
) -> None:
    none = Confinement(
        Availability(None, "bubblewrap (bwrap) is not installed", "install bubblewrap"),
        SandboxSettings(),
        (workspace,),
        home=home,
        heron_home=tmp_path,
        scrubbed=("SECRET_TOKEN",),
    )
    command = ["/bin/sh", "-c", "echo token=$SECRET_TOKEN"]
    launch = none.launch(command, writable=True)
    unset = ["/usr/bin/env", "-u", "SECRET_TOKEN", *command]
    assert not launch.confined and launch.argv == tethered(unset, os.getpid())  # dies with Heron
    assert none.launch(command, writable=True, tether=False).argv == unset  # Heron waits for it
    assert not none.sandboxed
    assert none.notice() == (
        "no sandbox (bubblewrap (bwrap) is not installed): commands ask first. "
        "To get one, install bubblewrap."
    )
    assert none.notice() is None  # once per session
    relaxed = Confinement(
        Availability(None, "none here"),
        SandboxSettings(required=False),
        (workspace,),
        home=home,
        heron_home=tmp_path,
    )
    assert relaxed.sandboxed and "commands run unconfined" in relaxed.describe()


def test_the_seatbelt_profile_passes_paths_as_parameters(tmp_path: Path) -> None:
    policy = SandboxPolicy(
        visible=(Path("/w"),),
        writable=(Path("/w"), Path("/Users/u/.cache")),
        read_only=(Path("/w/.git"),),
        uncreatable=(Path("/w/.vscode"),),
        hidden=(Path("/Users/u/.ssh"),),
        temp=Path("/private/var/folders/x/T/heron"),
        empty=tmp_path,
        network=False,
    )
    profile, parameters = profile_for(policy)
    assert profile.startswith("(version 1)\n(deny default)")
    assert parameters == {
        "HIDDEN_0": "/Users/u/.ssh",
        "WRITABLE_0": "/w",
        "WRITABLE_1": "/Users/u/.cache",
        "WRITABLE_2": "/private/var/folders/x/T/heron",
        "PROTECTED_0": "/w/.git",
        "PROTECTED_1": "/w/.vscode",
    }
    assert "/w" not in profile  # every path is a parameter, never spliced into the text
    assert (
        '(allow file-read* (require-all (subpath "/") (require-not (subpath (param "HIDDEN_0")))))'
        in profile
    )
    assert (
        '(allow file-write* (require-all (require-any (subpath (param "WRITABLE_0")) '
        '(subpath (param "WRITABLE_1")) (subpath (param "WRITABLE_2"))) '
        '(require-not (subpath (param "PROTECTED_0"))) (require-not (subpath (param "PROTECTED_1"))) '
        '(require-not (subpath (param "HIDDEN_0")))))'
    ) in profile
    assert "(allow network*)" not in profile
    assert "com.apple.SecurityServer" not in profile  # the keychain stays out of reach
    assert "(allow network*)" in profile_for(replace(policy, network=True))[0]
    argv = Seatbelt().command(["/bin/sh", "-c", "ls"], policy, unset=("SECRET_TOKEN",))
    assert argv[:3] == [SANDBOX_EXEC, "-p", profile]
    assert "-DHIDDEN_0=/Users/u/.ssh" in argv
    assert argv[-6:] == [
        "/usr/bin/env",
        "-uSECRET_TOKEN",
        "TMPDIR=/private/var/folders/x/T/heron",
        "/bin/sh",
        "-c",
        "ls",
    ]


def test_a_launch_outside_the_sandbox_is_marked(sandbox: Confinement) -> None:
    inside = sandbox.launch(["/bin/true"], writable=True)
    assert inside.confined and Path(inside.argv[0]).name == "bwrap"  # it dies with Heron itself
    assert sandbox.unconfined(["/bin/true"]) == Launch(
        tethered(["/usr/bin/env", "-u", "SECRET_TOKEN", "/bin/true"], os.getpid()), False
    )


def test_seatbelt_launches_are_tethered(workspace: Path, home: Path, tmp_path: Path) -> None:
    """macOS has no parent-death signal: sandbox-exec runs behind the tether."""
    seatbelt = Confinement(
        Availability(Seatbelt()), SandboxSettings(), (workspace,), home=home, heron_home=tmp_path
    )
    argv = seatbelt.launch(["/bin/true"], writable=True).argv
    assert argv[: len(tethered([], 0)) - 1] == tethered([], 0)[:-1]
    assert argv[argv.index(str(os.getpid())) + 1] == SANDBOX_EXEC
    seatbelt.close()


def _wait(condition: object, timeout: float = 10.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_root_inside_cannot_change_the_kernel(sandbox: Confinement, workspace: Path) -> None:
    done = run(
        sandbox,
        "python3 -c \"open('/proc/sys/kernel/core_pattern', 'r+')\" 2>&1; echo opened=$?",
        workspace,
    )
    assert "opened=1" in done.stdout and "Read-only file system" in done.stdout


def test_nested_repositories_env_files_and_hook_folders_are_protected(
    workspace: Path, home: Path, tmp_path: Path
) -> None:
    (workspace / "sub" / ".git" / "hooks").mkdir(parents=True)
    (workspace / "apps" / "web").mkdir(parents=True)
    (workspace / "apps" / "web" / ".env").write_text("KEY=1\n")
    (workspace / ".husky").mkdir()
    (workspace / ".git" / "config").write_text("[core]\n\thooksPath = .husky\n")
    for sandbox in confinement(workspace, home, tmp_path):
        run(
            sandbox,
            "echo evil > sub/.git/hooks/pre-commit; echo X=2 >> apps/web/.env; "
            "echo evil > .husky/pre-commit",
            workspace,
        )
    assert not (workspace / "sub" / ".git" / "hooks" / "pre-commit").exists()
    assert (workspace / "apps" / "web" / ".env").read_text() == "KEY=1\n"
    assert not (workspace / ".husky" / "pre-commit").exists()


def test_a_workspace_without_a_repository_cannot_be_given_one(home: Path, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    for sandbox in confinement(plain, home, tmp_path):
        done = run(sandbox, "git init -q . 2>&1; mkdir -p .git/hooks 2>&1; echo done", plain)
        assert "done" in done.stdout
    assert not (plain / ".git").exists()  # nor the empty stand-in, once the command ended


def test_the_git_credential_cache_socket_is_out_of_reach(
    workspace: Path, home: Path, tmp_path: Path
) -> None:
    (home / ".cache" / "git" / "credential").mkdir(parents=True)
    (home / ".cache" / "git" / "credential" / "socket").write_text("")
    for sandbox in confinement(workspace, home, tmp_path):
        done = run(sandbox, "ls -A ~/.cache/git/credential | wc -l; touch ~/.cache/ok", workspace)
        assert done.stdout.split()[0] == "0" and (home / ".cache" / "ok").exists()


def test_what_a_killed_heron_left_behind_is_swept(workspace: Path, tmp_path: Path) -> None:
    import tempfile

    from agent_core.safety.sandbox import confinement as module

    dead = subprocess.Popen(["true"])
    dead.wait()
    state = Path(tempfile.gettempdir()) / f"{module.STATE_PREFIX}{dead.pid}-test"
    (state / "tmp").mkdir(parents=True)
    stand_in, kept = workspace / ".vscode", workspace / ".idea"
    stand_in.mkdir()
    kept.mkdir()
    (kept / "workspace.xml").write_text("<x/>")  # the user put something in it since
    (state / module.PLACEHOLDERS).write_text(f"{stand_in}\n{kept}\n")
    module.sweep_leftovers.__wrapped__()
    assert not state.exists() and not stand_in.exists() and (kept / "workspace.xml").exists()


def test_herons_own_programs_are_never_found_in_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git, bubblewrap and rg run outside the sandbox (or are it): a relative or empty PATH
    entry must not find one a repository planted where Heron was started."""
    from agent_core.safety.paths import installed

    planted = tmp_path / "git"
    planted.write_text("#!/bin/sh\ntouch pwned\n")
    planted.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    real = installed("git")
    monkeypatch.setenv("PATH", f":.:bin:{os.environ['PATH']}")
    assert installed("git") == real and real is not None and Path(real).parent != tmp_path
    monkeypatch.setenv("PATH", ".")
    assert installed("git") is None
