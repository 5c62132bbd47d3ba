"""The container backend against real Podman: one container for the module's workspace, made
from an image imported here; each test talks to it through a runner of its own."""

from __future__ import annotations

import os
import resource
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest

from agent_core.execution.container import Container, ContainerSpec
from agent_core.execution.engine import fixes_in
from agent_core.execution.runner import ContainerLauncher, ContainerRunner
from agent_core.ports.runner import CommandResult
from tests.support import containers

PODMAN_DEFAULT_NOFILE = 1 << 20


@dataclass(frozen=True)
class Setup:
    spec: ContainerSpec
    os_id: str
    workspace: Path
    home: Path
    fixes: tuple[str, ...]


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Setup]:
    containers.require_podman()
    base = tmp_path_factory.mktemp("container")
    os_id = containers.unique_id()
    image = containers.import_image(os_id)
    home = base / "home"  # a home-like folder with a planted key; it is also a root
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PLANTED KEY\n")
    workspace = base / "workspace"
    workspace.mkdir()
    (workspace / "README.md").write_text("# sample\n")
    heron_home = base / "heron-home"
    spec = containers.spec((workspace, home), home, heron_home, image)
    engine = containers.engine(heron_home)
    container = Container(engine, spec)
    try:
        anyio.run(container.ensure)
        yield Setup(spec, os_id, workspace, home, tuple(engine.fixes))
    finally:
        anyio.run(container.close)
        containers.remove_container(spec.name)
        containers.remove_image(image)


def runner(setup: Setup) -> ContainerRunner:
    engine = containers.engine(setup.spec.heron_home)
    return ContainerRunner(Container(engine, setup.spec), {"LANG": "C.UTF-8"}, grace=0.5)


async def nothing(_terminal: str | None) -> None:
    return None


async def sh(run: ContainerRunner, command: str, cwd: Path, limit: float = 10) -> CommandResult:
    launch = ContainerLauncher().launch(["/bin/sh", "-c", command])
    return await run.run(
        launch.argv, cwd=cwd, time_limit=limit, output_limit=30_000, started=nothing
    )


def processes(command: str) -> str:  # pattern for /proc cmdlines, its own line not matching
    return (
        "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done"
        f" | grep -c '^{command}' || true"
    )


@pytest.mark.anyio
async def test_a_command_runs_in_the_image_and_the_workspace(setup: Setup) -> None:
    run = runner(setup)
    try:
        release = await sh(run, ". /etc/os-release; echo $ID; pwd; cat README.md", setup.workspace)
        assert release.exit_code == 0, release.output
        assert release.output.split() == [setup.os_id, str(setup.workspace), "#", "sample"]
        wrote = await sh(run, "echo made inside > made.txt; echo $LANG", setup.workspace)
        assert wrote.output.strip() == "C.UTF-8"
        assert (setup.workspace / "made.txt").read_text() == "made inside\n"
        failed = await sh(run, "echo oops >&2; exit 3", setup.workspace)
        assert (failed.exit_code, failed.output.strip()) == (3, "oops")
    finally:
        await run.close()


@pytest.mark.anyio
async def test_nothing_secret_is_seen(setup: Setup, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("host only\n")
    run = runner(setup)
    try:
        key = setup.home / ".ssh" / "id_ed25519"
        seen = await sh(run, f"ls -A {key.parent}; cat {key}; cat {outside}", setup.workspace)
        assert "PLANTED" not in seen.output and "host only" not in seen.output
        assert seen.exit_code != 0
        env = await sh(run, "env", setup.workspace)
        assert "HERON" not in env.output and "KEY" not in env.output
        mounts = await sh(run, "cat /proc/mounts", setup.workspace)
        assert (
            "docker.sock" not in mounts.output and str(setup.spec.heron_home) not in mounts.output
        )
        net = await sh(run, "cat /proc/net/dev", setup.workspace)
        assert "eth0" not in net.output  # --network none: only lo
    finally:
        await run.close()


@pytest.mark.anyio
async def test_a_long_command_is_killed_at_its_time_limit_with_nothing_left(setup: Setup) -> None:
    run = runner(setup)
    try:
        started = time.monotonic()
        result = await sh(run, "echo begun; sleep 3007", setup.workspace, limit=0.5)
        assert time.monotonic() - started < 1.5
        assert result.timed_out and result.signal == "SIGTERM"
        assert result.output.strip() == "begun"
        left = await sh(run, processes("sleep 300[7]"), setup.workspace)
        assert left.output.strip() == "0"
    finally:
        await run.close()


@pytest.mark.anyio
async def test_cancel_kills_the_command_inside_within_a_second(setup: Setup) -> None:
    run = runner(setup)
    cancelled = 0.0
    try:
        async with anyio.create_task_group() as group:

            async def long() -> None:
                await sh(run, "trap '' TERM; sleep 3011 & sleep 3012; wait", setup.workspace, 60)

            group.start_soon(long)
            await anyio.sleep(0.3)
            cancelled = time.monotonic()
            group.cancel_scope.cancel()
        assert time.monotonic() - cancelled < 1.0  # TERM ignored: KILL after the 0.5 s grace
        left = await sh(run, processes("sleep 301[12]"), setup.workspace)
        assert left.output.strip() == "0"
    finally:
        await run.close()


@pytest.mark.anyio
async def test_background_start_output_kill(setup: Setup) -> None:
    run = runner(setup)
    try:
        shell = ["/bin/sh", "-c", "echo serving; sleep 3009"]
        process_id = await run.start(shell, cwd=setup.workspace, output_limit=1000)
        with anyio.fail_after(5):
            while "serving" not in (now := await run.output(process_id)).output:  # noqa: ASYNC110
                await anyio.sleep(0.02)
        assert now.running
        killed = await run.kill(process_id)
        assert not killed.running and killed.signal == "SIGTERM"
        left = await sh(run, processes("sleep 300[9]"), setup.workspace)
        assert left.output.strip() == "0"
        quick = await run.start(["/bin/sh", "-c", "exit 4"], cwd=setup.workspace, output_limit=10)
        with anyio.fail_after(5):
            while (done := await run.output(quick)).running:  # noqa: ASYNC110
                await anyio.sleep(0.02)
        assert done.exit_code == 4
    finally:
        await run.close()


@pytest.mark.anyio
async def test_output_is_capped_keeping_the_end(setup: Setup) -> None:
    engine = containers.engine(setup.spec.heron_home)
    run = ContainerRunner(Container(engine, setup.spec))
    try:
        launch = ContainerLauncher().launch(["/bin/sh", "-c", "seq 1 20000"])
        result = await run.run(
            launch.argv, cwd=setup.workspace, time_limit=10, output_limit=100, started=nothing
        )
        assert result.truncated and result.output.endswith("19999\n20000\n")
        assert len(result.output) <= 100
    finally:
        await run.close()


@pytest.mark.anyio
async def test_the_container_is_reused_by_a_second_client(setup: Setup) -> None:
    first, second = runner(setup), runner(setup)
    try:
        one = await sh(first, "echo $$ > /tmp/shared; hostname", setup.workspace)
        two = await sh(second, "cat /tmp/shared >/dev/null && hostname", setup.workspace)
        assert one.output == two.output and two.exit_code == 0
        assert (await first.server()) is not None  # both served at once
        assert (await sh(first, "true", setup.workspace)).exit_code == 0
    finally:
        await first.close()
        await second.close()


def test_the_known_failure_fix_is_applied_here(setup: Setup) -> None:
    conf = setup.spec.heron_home / "containers" / "containers.conf"
    if resource.getrlimit(resource.RLIMIT_NOFILE)[1] < PODMAN_DEFAULT_NOFILE:
        assert "ulimits" in setup.fixes  # this machine's Podman fails without it
    if setup.fixes:
        assert sorted(fixes_in(conf.read_text())) == sorted(setup.fixes)


@pytest.mark.anyio
async def test_a_dockerfile_is_built_and_the_container_removed_on_close(
    setup: Setup, tmp_path: Path
) -> None:
    image = setup.spec.image
    assert image is not None
    context = tmp_path / "image"
    context.mkdir()
    (context / "marker").write_text("built here\n")
    (context / "Dockerfile").write_text(f"FROM {image}\nCOPY marker /marker\n")
    workspace = tmp_path / "other"
    workspace.mkdir()
    home = tmp_path / "home"
    spec = containers.spec(
        (workspace,), home, setup.spec.heron_home, dockerfile=context / "Dockerfile"
    )
    engine = containers.engine(setup.spec.heron_home)
    container = Container(engine, spec)
    shown: list[str] = []

    async def progress(line: str) -> None:
        shown.append(line)

    run = ContainerRunner(container, progress=progress)
    try:
        result = await sh(run, "cat /marker", workspace)
        assert result.output == "built here\n"
        assert any("Building the image" in line for line in shown)
    finally:
        await run.close()
        await container.close()
        listed = await anyio.run_process(
            ["podman", "images", "-q", "--filter", f"reference=localhost/heron-{spec.key}"]
        )
        tags = listed.stdout.decode().split()
        containers.remove_image(f"localhost/heron-{spec.key}")
        for tag in tags:
            containers.remove_image(tag)
    exists = await anyio.run_process(["podman", "container", "exists", spec.name], check=False)
    assert exists.returncode == 1


@pytest.mark.anyio
async def test_links_planted_in_the_servers_folder_are_not_followed(
    setup: Setup, tmp_path: Path
) -> None:
    secret = tmp_path / "host-secret.txt"  # not mounted: the link resolves only on the host
    secret.write_text("HOST SECRET\n")
    target = tmp_path / "host-file.txt"
    target.write_text("untouched\n")
    plant = (
        'me=$(grep -l "^$$\\$" /run/heron/*.pid); id=${me%.pid}; n=${id##*-}; next=${id%-*}-$((n+1));'
        f" ln -s {target} $next.sh; ln -s {secret} $next.out; echo planted"
    )
    run = runner(setup)
    try:
        assert (await sh(run, plant, setup.workspace)).output.strip() == "planted"
        after = await sh(run, "echo second", setup.workspace)
        assert after.output == "second\n" and "SECRET" not in after.output
        assert target.read_text() == "untouched\n"
    finally:
        await run.close()


@pytest.mark.anyio
async def test_what_a_dead_host_client_started_dies_with_it(setup: Setup) -> None:
    run, watcher = runner(setup), runner(setup)
    try:
        await run.start(["/bin/sh", "-c", "sleep 3013"], cwd=setup.workspace, output_limit=100)
        server = await run.server()
        assert (await sh(watcher, processes("sleep 301[3]"), setup.workspace)).output == "1\n"
        assert server.client_pid is not None
        os.kill(server.client_pid, signal.SIGKILL)  # as if Heron were killed
        with anyio.fail_after(5):
            while (await sh(watcher, processes("sleep 301[3]"), setup.workspace)).output != "0\n":  # noqa: ASYNC110
                await anyio.sleep(0.05)
        assert (await sh(run, "echo again", setup.workspace)).output == "again\n"  # a new server
    finally:
        await run.close()
        await watcher.close()
