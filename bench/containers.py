"""Container backend figures: what a command costs in the running container over the local
sandbox, and the first command's wait with an image already built (the container created and
started, the command server up, the command run). The image is imported locally, as the tests
do (no registry); without a working Podman the rows say why they were not measured.
``.venv/bin/python -m bench.containers`` prints them."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import anyio

from agent_core.execution.container import Container, ContainerSpec
from agent_core.execution.engine import EngineError
from agent_core.execution.runner import ContainerLauncher, ContainerRunner
from agent_core.ports.runner import CommandRunner, LocalRunner
from agent_core.safety.sandbox.confinement import Confinement
from agent_core.safety.sandbox.detect import detect
from agent_core.safety.sandbox.settings import SandboxSettings
from bench.figures import Figure
from tests.support import containers

RUNS = 41
COLD_STARTS = 5
COMMAND = ["/bin/sh", "-c", "true"]
PER_COMMAND = "a command in the running container, added over the local sandbox"
FIRST = "first command with an already built image: container start to the command's end"
# The first command of a session in a workspace whose container is not running waits for it
# (a notice says so). A second is what a user lets pass without wondering whether the command
# hangs; Podman needs about a quarter of it here, so a slower machine or engine still fits.
FIRST_BUDGET_MS = 1000


@dataclass(frozen=True)
class NotMeasured(Figure):
    """A row whose figure could not be taken here, saying why."""

    def row(self) -> str:
        return f"| {self.name} | not measured | — | — | {self.how} |"


def measure(env: dict[str, str]) -> list[Figure]:
    del env  # measured in this process: no agent involved
    problem = _unusable()
    if problem is None:
        with tempfile.TemporaryDirectory() as scratch:
            try:
                return anyio.run(_measure, Path(scratch))
            except (EngineError, OSError) as exc:
                problem = " ".join(str(exc).split())[:200]
    return [
        NotMeasured(name, 0.0, "ms", None, f"skipped: {problem}") for name in (PER_COMMAND, FIRST)
    ]


def _unusable() -> str | None:
    """Why Podman cannot be used here (the image is imported with it), or None."""
    if shutil.which("podman") is None:
        return "podman is not installed (apt-get install podman runc)"
    try:
        done = subprocess.run(
            ["podman", "info"], capture_output=True, text=True, timeout=30, check=False
        )
    except subprocess.TimeoutExpired:
        return "podman info did not answer in 30 s"
    return None if done.returncode == 0 else f"podman info failed: {done.stderr.strip()[-200:]}"


async def _measure(scratch: Path) -> list[Figure]:
    root = scratch / "workspace"
    root.mkdir()
    image = containers.import_image(containers.unique_id())
    spec = containers.spec((root,), scratch / "home", scratch / "heron-home", image)
    try:
        await _cold_start(spec)  # not counted: finds and records the fixes this machine needs
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
        try:
            for _ in range(RUNS):  # interleaved, so both see the same machine
                argv = ContainerLauncher().launch(COMMAND).argv
                inside.append(await _timed(runner, argv, root))
                launch = sandbox.launch(COMMAND, writable=True)
                outside.append(await _timed(local, launch.argv, root))
                sandbox.release(launch)
        finally:
            sandbox.close()
            await runner.close()
            await container.close()
    finally:
        containers.remove_container(spec.name)
        containers.remove_image(image)
    added = (statistics.median(inside) - statistics.median(outside)) * 1000
    mechanism = availability.mechanism.name if availability.mechanism else "none"
    how = (
        f"median of {RUNS} runs of `sh -c true`, interleaved: "
        f"{statistics.median(inside) * 1000:.1f} ms through the container's command server, "
        f"{statistics.median(outside) * 1000:.1f} ms in the local sandbox ({mechanism}); "
        "Podman, an image imported locally"
    )
    return [
        Figure(PER_COMMAND, added, "ms", 50, how),
        Figure(
            FIRST,
            statistics.median(cold) * 1000,
            "ms",
            FIRST_BUDGET_MS,
            f"median of {COLD_STARTS} (a first one not counted): `run -d` of the image, the "
            "command server started in it, `sh -c true`; the container removed after each; "
            "budget: a second, a wait that does not look like a hang",
        ),
    ]


async def _cold_start(spec: ContainerSpec) -> float:
    container = Container(containers.engine(spec.heron_home), spec)
    runner = ContainerRunner(container)
    started = time.perf_counter()
    await runner.run(COMMAND, cwd=spec.roots[0], time_limit=60, output_limit=1000, started=_nothing)
    took = time.perf_counter() - started
    try:
        await runner.close()
    finally:
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
