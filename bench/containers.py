"""Container backend figures (not in ``make bench`` yet): what a command costs in the running
container against the local sandbox, and the first command's start-up with an image already
built. ``.venv/bin/python -m bench.containers`` prints them."""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

import anyio

from agent_core.execution.container import Container, ContainerSpec
from agent_core.execution.runner import ContainerLauncher, ContainerRunner
from agent_core.ports.runner import CommandRunner, LocalRunner
from agent_core.safety.sandbox.confinement import Confinement
from agent_core.safety.sandbox.detect import detect
from agent_core.safety.sandbox.settings import SandboxSettings
from bench.figures import Figure
from tests.support import containers

RUNS = 41
COLD_STARTS = 3
COMMAND = ["/bin/sh", "-c", "true"]


def measure(env: dict[str, str]) -> list[Figure]:
    del env  # measured in this process: no agent involved
    with tempfile.TemporaryDirectory() as scratch:
        return anyio.run(_measure, Path(scratch))


async def _measure(scratch: Path) -> list[Figure]:
    root = scratch / "workspace"
    root.mkdir()
    image = containers.import_image(containers.unique_id())
    spec = containers.spec((root,), scratch / "home", scratch / "heron-home", image)
    try:
        cold = [await _cold_start(spec) for _ in range(COLD_STARTS)]
        container = Container(containers.engine(spec.heron_home), spec)
        runner = ContainerRunner(container)
        await runner.run(COMMAND, cwd=root, time_limit=30, output_limit=1000, started=_nothing)
        availability = detect(network=True)
        sandbox = Confinement(
            availability, SandboxSettings(), (root,), home=Path.home(), heron_home=scratch
        )
        local = LocalRunner(dict(os.environ))
        inside: list[float] = []
        outside: list[float] = []
        for _ in range(RUNS):  # interleaved, so both see the same machine
            inside.append(await _timed(runner, ContainerLauncher().launch(COMMAND).argv, root))
            launch = sandbox.launch(COMMAND, writable=True)
            outside.append(await _timed(local, launch.argv, root))
            sandbox.release(launch)
        sandbox.close()
        await runner.close()
        await container.close()
    finally:
        containers.remove_image(image)
    added = (statistics.median(inside) - statistics.median(outside)) * 1000
    how = (
        f"median of {RUNS} runs of `sh -c true` through the command server: "
        f"{statistics.median(inside) * 1000:.1f} ms in the container, "
        f"{statistics.median(outside) * 1000:.1f} ms in the local sandbox "
        f"({availability.mechanism.name if availability.mechanism else 'none'})"
    )
    return [
        Figure("container cost per command, over the local sandbox", added, "ms", 50, how),
        Figure(
            "container start-up to the first command's end, image built",
            statistics.median(cold) * 1000,
            "ms",
            None,
            f"median of {COLD_STARTS}: create and start, the command server, `sh -c true`",
        ),
    ]


async def _cold_start(spec: ContainerSpec) -> float:
    container = Container(containers.engine(spec.heron_home), spec)
    runner = ContainerRunner(container)
    started = time.perf_counter()
    await runner.run(COMMAND, cwd=spec.roots[0], time_limit=60, output_limit=1000, started=_nothing)
    took = time.perf_counter() - started
    await runner.close()
    await container.close()
    return took


async def _timed(runner: CommandRunner, argv: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    await runner.run(argv, cwd=cwd, time_limit=30, output_limit=1000, started=_nothing)
    return time.perf_counter() - started


async def _nothing(_terminal: str | None) -> None:
    return None


if __name__ == "__main__":
    for figure in measure({}):
        print(figure.row())  # noqa: T201
