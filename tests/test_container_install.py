"""The container backend as a user sets it up and checks it: `heron setup container` and
`heron setup local` editing their own config.toml (real files), and `heron doctor` reporting the
engine, the image and the workspace's container against real Podman."""

from __future__ import annotations

import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import anyio
import pytest

from agent_core.execution.container import Container
from agent_core.execution.engine import FIXES
from tests.support import containers

HERON = str(Path(sys.executable).parent / "heron")

CONFIG = """# my Heron settings
model = "scripted:echo"  # the offline one

[sandbox]
network = "allow"   # I need pip

# keep this comment
[execution.workspaces."/somewhere/else"]
backend = "container"
image = "localhost/other"
"""


def heron(
    env: dict[str, str], *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [HERON, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def table(heron_home: Path, workspace: Path) -> dict[str, str]:
    parsed = tomllib.loads((heron_home / "config.toml").read_text())
    return parsed["execution"]["workspaces"][str(workspace)]


def line(out: str, start: str) -> str:
    found = [row for row in out.splitlines() if row.startswith(start)]
    assert len(found) == 1, out
    return found[0]


def test_setup_container_writes_the_table_and_keeps_the_rest(
    agent_env: dict[str, str], heron_home: Path, workspace: Path, tmp_path: Path
) -> None:
    config = heron_home / "config.toml"
    config.write_text(CONFIG)
    config.chmod(0o600)
    (workspace / "Dockerfile").write_text("FROM scratch\n")

    dry = heron(
        agent_env, "setup", "container", "--dockerfile", "Dockerfile", "--dry-run", cwd=workspace
    )
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert f'[execution.workspaces."{workspace}"]' in dry.stdout and "--dry-run" in dry.stdout
    assert config.read_text() == CONFIG and list(heron_home.glob("*.bak")) == []

    done = heron(
        agent_env, "setup", "container", "--dockerfile", "Dockerfile", "--engine", "podman",
        cwd=workspace,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    text = config.read_text()
    assert text.startswith(CONFIG)  # every line as it was, comments included
    assert table(heron_home, workspace) == {
        "backend": "container",
        "engine": "podman",
        "dockerfile": str(workspace / "Dockerfile"),
    }
    assert f"built from {workspace / 'Dockerfile'}" in done.stdout
    assert "Next: the first command of a session there starts the container" in done.stdout
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    [backup] = heron_home.glob("config.toml.*.bak")
    assert backup.read_text() == CONFIG

    image = heron(agent_env, "setup", "container", str(workspace), "--image", "localhost/tools")
    assert image.returncode == 0, image.stdout + image.stderr
    assert table(heron_home, workspace) == {
        "backend": "container",
        "engine": "podman",
        "image": "localhost/tools",
    }  # the image replaces the Dockerfile: the two cannot go together
    again = heron(agent_env, "setup", "container", str(workspace), "--image", "localhost/tools")
    assert again.returncode == 0 and "Nothing to change" in again.stdout

    local = heron(agent_env, "setup", "local", str(workspace))
    assert local.returncode == 0, local.stdout + local.stderr
    assert table(heron_home, workspace)["backend"] == "local"
    assert table(heron_home, workspace)["image"] == "localhost/tools"  # kept for later
    assert config.read_text().startswith(CONFIG)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    untouched = config.read_text()
    nothing = heron(agent_env, "setup", "local", str(elsewhere))
    assert nothing.returncode == 0 and "Nothing written" in nothing.stdout
    assert config.read_text() == untouched


def test_setup_container_uses_the_workspaces_devcontainer_or_says_what_is_missing(
    agent_env: dict[str, str], heron_home: Path, workspace: Path
) -> None:
    missing = heron(agent_env, "setup", "container", str(workspace))
    assert missing.returncode == 1
    assert "pass --image NAME or --dockerfile PATH, or add .devcontainer/devcontainer.json" in (
        missing.stdout
    )
    assert not (heron_home / "config.toml").exists()

    (workspace / ".devcontainer").mkdir()
    (workspace / ".devcontainer" / "devcontainer.json").write_text('{"image": "debian"}\n')
    done = heron(agent_env, "setup", "container", str(workspace))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"made from {workspace / '.devcontainer' / 'devcontainer.json'}" in done.stdout
    assert table(heron_home, workspace) == {"backend": "container"}
    assert stat.S_IMODE((heron_home / "config.toml").stat().st_mode) == 0o600  # it may hold keys


def test_setup_container_refuses_bad_input_clearly(
    agent_env: dict[str, str], heron_home: Path, workspace: Path, tmp_path: Path
) -> None:
    both = heron(agent_env, "setup", "container", "--image", "a", "--dockerfile", "b")
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
    engine = heron(agent_env, "setup", "container", "--engine", "lxc")
    assert engine.returncode == 2 and "invalid choice: 'lxc'" in engine.stderr
    gone = heron(agent_env, "setup", "container", str(tmp_path / "nope"), "--image", "a")
    assert gone.returncode == 1 and "not a folder" in gone.stdout
    no_file = heron(agent_env, "setup", "container", str(workspace), "--dockerfile", "Missing")
    assert no_file.returncode == 1 and "--dockerfile Missing: no such file" in no_file.stdout
    name = heron(agent_env, "setup", "container", str(workspace), "--image", "two words")
    assert name.returncode == 1 and "is not an image name" in name.stdout
    assert not (heron_home / "config.toml").exists()

    broken = 'model = "scripted:echo"\n[execution\n'
    (heron_home / "config.toml").write_text(broken)
    refused = heron(agent_env, "setup", "container", str(workspace), "--image", "localhost/t")
    assert refused.returncode == 1
    assert "is not valid TOML" in refused.stdout and "add this by hand" in refused.stdout
    assert f'[execution.workspaces."{workspace}"]\nbackend = "container"' in refused.stdout
    assert (heron_home / "config.toml").read_text() == broken
    inline = "execution = { workspaces = {} }\n"
    (heron_home / "config.toml").write_text(inline)
    odd = heron(agent_env, "setup", "container", str(workspace), "--image", "localhost/t")
    assert odd.returncode == 1 and "add this by hand" in odd.stdout
    assert (heron_home / "config.toml").read_text() == inline


def test_setup_help_names_editors_and_backends(agent_env: dict[str, str]) -> None:
    shown = heron(agent_env, "setup", "--help").stdout
    for target in ("zed", "jetbrains", "vscode", "container", "local"):
        assert target in shown
    container = heron(agent_env, "setup", "container", "--help").stdout
    assert "--image NAME" in container and "--dockerfile PATH" in container
    assert "devcontainer.json" in container and "{podman,docker}" in container


def test_doctor_says_how_to_get_an_engine_when_none_is_on_path(
    agent_env: dict[str, str], heron_home: Path, workspace: Path
) -> None:
    (heron_home / "config.toml").write_text(
        f'model = "scripted:echo"\n[execution.workspaces."{workspace}"]\n'
        'backend = "container"\nimage = "localhost/tools"\n'
    )
    without = {**agent_env, "PATH": "/nonexistent"}
    out = heron(without, "doctor", cwd=workspace).stdout
    assert line(out, "[ok] commands in").endswith(
        f'run in a container (backend container, from [execution.workspaces."{workspace}"])'
    )
    missing = line(out, "[!!] container engine:")
    assert "podman or docker not found on PATH" in missing
    for system in ("Debian", "Fedora: sudo dnf install podman", "Arch: sudo pacman -S podman"):
        assert system in missing
    assert "macOS: brew install podman" in missing
    elsewhere = heron(without, "doctor", cwd=heron_home).stdout  # not that workspace
    assert "run on this machine (backend local" in line(elsewhere, "[ok] commands in")


def test_doctor_shows_the_engine_the_image_and_the_containers_state(
    agent_env: dict[str, str], heron_home: Path, tmp_path: Path
) -> None:
    containers.require_podman()
    workspace = (tmp_path / "project").resolve()
    workspace.mkdir()
    image = containers.import_image(containers.unique_id())
    spec = containers.spec((workspace,), tmp_path / "home", heron_home, image)
    try:
        done = heron(agent_env, "setup", "container", "--image", image, cwd=workspace)
        assert done.returncode == 0, done.stdout + done.stderr
        before = heron(agent_env, "doctor", cwd=workspace).stdout
        assert line(before, "[ok] container engine: podman ").endswith("/podman")
        assert line(before, "[ok] container image:") == f"[ok] container image: {image} (here)"
        assert line(before, "[--] container:") == (
            f"[--] container: {spec.name} absent; the first command starts it"
        )

        engine = containers.engine(heron_home)  # as sessions make it: the fixes under its home
        container = Container(engine, spec)
        anyio.run(container.ensure)
        running = heron(agent_env, "doctor", cwd=workspace).stdout
        assert line(running, "[ok] container:") == f"[ok] container: {spec.name} running"
        if engine.fixes:  # what this machine's Podman needed, as the engine applied it
            applied = line(running, "[--] container engine: settings Heron applied")
            assert all(FIXES[fix] in applied for fix in engine.fixes), applied
        subprocess.run(["podman", "stop", "-t", "0", spec.name], check=True, capture_output=True)
        stopped = heron(agent_env, "doctor", cwd=workspace).stdout
        assert line(stopped, "[--] container:") == (
            f"[--] container: {spec.name} exited; the next command starts it again"
        )
        anyio.run(container.close)
        assert "absent" in line(heron(agent_env, "doctor", cwd=workspace).stdout, "[--] container:")
    finally:
        containers.remove_container(spec.name)
        containers.remove_image(image)


def test_doctor_says_how_to_start_an_engine_that_is_not_running(
    agent_env: dict[str, str], heron_home: Path, workspace: Path, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    docker = bin_dir / "docker"  # a Docker client whose daemon is down
    docker.write_text(
        "#!/bin/sh\necho 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. "
        "Is the docker daemon running?' >&2\nexit 1\n"
    )
    docker.chmod(0o755)
    (heron_home / "config.toml").write_text(
        'model = "scripted:echo"\n[execution]\nbackend = "container"\nengine = "docker"\n'
        'image = "localhost/tools"\n'
    )
    env = {**agent_env, "PATH": f"{bin_dir}:{agent_env['PATH']}"}
    out = heron(env, "doctor", cwd=workspace).stdout
    assert "(backend container, from [execution])" in line(out, "[ok] commands in")
    down = line(out, "[!!] container engine:")
    assert f"docker at {docker} does not answer: docker is installed but not running" in down
    assert "systemctl start docker" in down
    assert "[--] container:" not in out  # nothing more is asked of an engine that is down


@pytest.mark.parametrize("target", ["zed", "vscode"])
def test_editor_setup_still_takes_dry_run_after_the_target(
    agent_env: dict[str, str], tmp_path: Path, target: str
) -> None:
    home = tmp_path / "user"
    (home / ".config").mkdir(parents=True)
    user = {**agent_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    done = heron(user, "setup", target, "--dry-run")
    assert done.returncode == 0 and "(nothing written: --dry-run)" in done.stdout
