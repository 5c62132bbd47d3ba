"""The container engine's choice, its known failures and their fixes, its errors, and
``[execution]``: pure, except the build that fails (real Podman, an image imported here)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent_core.errors import ConfigError
from agent_core.execution.container import Container, ContainerSpec
from agent_core.execution.engine import (
    Completed,
    Engine,
    EngineError,
    conf_text,
    find_engine,
    fixes_in,
    known_fix,
    ulimits,
)
from agent_core.execution.runner import ContainerLauncher
from agent_core.execution.settings import ExecutionSettings, read_execution
from tests.support import containers

SEEN_HERE = {  # messages Podman 4.3 printed on a machine whose defaults fail
    "Error: OCI runtime error: crun: cgroups in hybrid mode not supported": "runtime",
    "Error: runc: runc create failed: unable to start container process: error during container "
    "init: error setting rlimits for ready process: error setting rlimit type 7: operation not "
    "permitted: OCI permission denied": "ulimits",
    "Error: OCI runtime error: crun: setrlimit `RLIMIT_NOFILE`: Operation not permitted": "ulimits",
    "Error: systemd not running on this host, cannot use systemd cgroup manager": "cgroup_manager",
}


def test_known_failures_name_their_fix() -> None:
    for message, fix in SEEN_HERE.items():
        assert known_fix(message) == fix
    assert known_fix("Error: no such image") is None


def test_the_private_conf_carries_the_fixes_and_reads_back() -> None:
    text = conf_text(["ulimits", "runtime", "cgroup_manager", "events_logger"])
    nofile, nproc = ulimits()
    assert f'default_ulimits = ["{nofile}", "{nproc}"]' in text
    assert 'runtime = "runc"' in text and 'cgroup_manager = "cgroupfs"' in text
    assert sorted(fixes_in(text)) == ["cgroup_manager", "events_logger", "runtime", "ulimits"]
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY:
        assert nofile == f"nofile={hard}:{hard}"


def test_a_fix_is_applied_once_written_and_found_by_a_later_engine(tmp_path: Path) -> None:
    state = tmp_path / "containers"
    engine = Engine("podman", "/usr/bin/podman", state=state, environment={"PATH": "/usr/bin"})
    assert "CONTAINERS_CONF" not in engine.environment()
    assert engine.fix(list(SEEN_HERE)[1])
    assert not engine.fix(list(SEEN_HERE)[2])  # the same fix again: another cause
    assert engine.environment()["CONTAINERS_CONF"] == str(state / "containers.conf")
    later = Engine("podman", "/usr/bin/podman", state=state, environment={})
    assert later.fixes == ["ulimits"]
    assert later.argv("ps") == ["/usr/bin/podman", "ps"]


def test_docker_gets_the_limits_as_run_options(tmp_path: Path) -> None:
    engine = Engine("docker", "/usr/bin/docker", state=tmp_path, environment={}, options=["-D"])
    assert engine.fix(list(SEEN_HERE)[1])
    assert engine.run_options()[0] == "--ulimit" and "CONTAINERS_CONF" not in engine.environment()
    assert engine.argv("ps") == ["/usr/bin/docker", "-D", "ps"]
    assert not (tmp_path / "containers.conf").exists()


def test_no_engine_and_a_missing_engine_say_how_to_install() -> None:
    with pytest.raises(EngineError, match="apt-get install podman runc"):
        find_engine(None, lambda _name: None)
    with pytest.raises(EngineError, match=r"engine = 'docker'.*docker\.io"):
        find_engine("docker", lambda _name: None)
    assert find_engine(None, {"docker": "/bin/docker"}.get) == ("docker", "/bin/docker")


def test_an_engine_not_running_says_how_to_start_it(tmp_path: Path) -> None:
    engine = Engine("docker", "/usr/bin/docker", state=tmp_path, environment={})
    down = Completed(1, "", "Cannot connect to the Docker daemon at unix:///var/run/docker.sock.")
    assert "systemctl start docker" in str(engine.failure(("ps",), down))


def test_execution_settings_are_read_and_bad_ones_named() -> None:
    assert read_execution({}) == ExecutionSettings()
    read = read_execution({"backend": "container", "image": "x", "engine_options": ["-D"]})
    assert (read.backend, read.image, read.network, read.engine_options) == (
        "container", "x", "bridge", ("-D",)
    )  # fmt: skip
    # the network commands have locally, unless the table says otherwise, per workspace too
    denied = read_execution({"workspaces": {"/w": {"backend": "container"}}}, "deny")
    assert (denied.network, denied.for_workspace(Path("/w")).network) == ("none", "none")
    own = read_execution({"network": "host", "workspaces": {"/w": {"network": "none"}}}, "deny")
    assert (own.network, own.for_workspace(Path("/w")).network) == ("host", "none")
    assert read_execution({"backend": "container"}).image is None  # the devcontainer.json, then
    bad = [
        {"backend": "vm"},
        {"image": "x", "dockerfile": "/d"},
        {"dockerfile": "relative/Dockerfile"},
        {"engine": "lxc"},
        {"network": "none; rm"},
        {"run_options": "--privileged"},
        {"workspaces": {"relative/folder": {"backend": "container"}}},
        {"workspaces": {"/abs": "container"}},
        {"workspaces": {"/abs": {"backend": "vm"}}},
    ]
    for section in bad:
        with pytest.raises(ConfigError, match=r"config\.toml"):
            read_execution(section)


def test_a_workspace_table_overrides_execution_for_its_folder_and_what_is_inside() -> None:
    read = read_execution(
        {
            "backend": "local",
            "image": "base",
            "workspaces": {
                "/work": {"backend": "container"},
                "/work/deep": {"backend": "container", "dockerfile": "/d/Dockerfile"},
                "/work/off": {"backend": "local"},
            },
        }
    )
    assert read.for_workspace(Path("/elsewhere")) == read
    assert read.for_workspace(Path("/work/a")).backend == "container"
    assert read.for_workspace(Path("/work/a")).image == "base"  # [execution]'s, kept
    deep = read.for_workspace(Path("/work/deep/x"))  # the most specific folder wins
    assert (deep.image, deep.dockerfile) == (None, Path("/d/Dockerfile"))
    assert read.for_workspace(Path("/work/off")).backend == "local"
    assert read.for_workspace(Path("/workshop")).backend == "local"  # not inside /work


@pytest.mark.anyio
async def test_a_failed_build_shows_its_last_lines(tmp_path: Path) -> None:
    containers.require_podman()
    image = containers.import_image(containers.unique_id())
    try:
        (tmp_path / "Dockerfile").write_text(f"FROM {image}\nCOPY not-there /x\n")
        engine = Engine.find("podman", state=tmp_path / "state", environment=dict(os.environ))
        with pytest.raises(EngineError, match=r"(?s)Building the image.*not-there.*Dockerfile"):
            await engine.build("localhost/heron-broken:1", tmp_path / "Dockerfile")
        assert (await engine.probe()).count(".") >= 1
    finally:
        await anyio.to_thread.run_sync(containers.remove_image, image)


class RecordingEngine:
    name = "podman"

    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []

    def remove_args(self, name: str) -> list[str]:
        return ["rm", "-f", name]

    async def call(self, *args: str, **_: Any) -> None:
        self.calls.append(args)


def dead_pid() -> int:
    gone = subprocess.Popen([sys.executable, "-c", ""])
    gone.wait()
    return gone.pid


@pytest.mark.anyio
async def test_a_container_another_live_heron_uses_is_left_to_it(tmp_path: Path) -> None:
    spec = ContainerSpec((tmp_path / "w",), tmp_path, tmp_path / "heron", image="x")
    engine = RecordingEngine()
    container = Container(engine, spec)  # type: ignore[arg-type]  # what close() uses of one
    owners = spec.state / "owners"
    owners.mkdir(parents=True)
    (owners / str(os.getpid())).touch()
    (owners / str(os.getppid())).touch()  # another Heron, alive
    await container.close()
    assert engine.calls == [] and not (owners / str(os.getpid())).exists()
    (owners / str(os.getppid())).unlink()
    (owners / str(dead_pid())).touch()  # a Heron that died without cleaning up
    await container.close()
    assert engine.calls == []  # this process no longer uses it: not its to remove
    (owners / str(os.getpid())).touch()
    await container.close()
    assert engine.calls == [("rm", "-f", spec.name)] and list(owners.iterdir()) == []


def test_plan_mode_in_a_container_relies_on_the_judge_alone() -> None:
    """The container has one, writable, mount of the workspace: a read-only launch is the same
    command line (the judge lets only read-only commands run unasked in plan mode)."""
    launcher = ContainerLauncher()
    shell = ["/bin/sh", "-c", "ls"]
    assert launcher.launch(shell, writable=False).argv == shell
    assert launcher.launch(shell, writable=False).confined


def test_a_local_session_loads_nothing_of_the_container_machinery(
    agent_env: dict[str, str],
) -> None:
    unwanted = [f"agent_core.execution.{m}" for m in ("engine", "container", "runner", "server")]
    code = (
        "import sys, acp_server.server, acp_server.wiring, acp_server.session;"
        "from agent_core.config import load_settings;"
        "from pathlib import Path;"
        "load_settings().execution.for_workspace(Path('/tmp'));"
        f"print(sorted(m for m in {unwanted!r} if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=agent_env
    )
    assert out.stdout.strip() == "[]"


def test_an_engine_planted_where_a_relative_path_entry_leads_is_never_picked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted = tmp_path / "podman"
    planted.write_text("#!/bin/sh\ntouch ran\n")
    planted.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", f".:bin:{tmp_path / 'nowhere'}")
    with pytest.raises(EngineError, match="needs Podman or Docker"):
        find_engine(None)
