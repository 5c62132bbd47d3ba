"""Where commands run, as ``heron doctor`` reports it: the backend of a folder and, for the
container backend, the engine (or how to install or start one), the settings Heron applied to
it on this machine, the image and the workspace's container.

Nothing is started here: the engine is asked ``info`` (a quick probe), whether an image is
there, and which container carries the workspace's label.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import anyio

from agent_core.execution.container import (
    LABEL_WORKSPACE,
    ContainerSpec,
    devcontainer_cli,
    find_devcontainer,
)
from agent_core.execution.container import (
    built_tag as container_tag,
)
from agent_core.execution.engine import FIXES, Engine, EngineError, find_engine
from agent_core.execution.settings import ExecutionSettings

OK, PROBLEM, NOTE = "ok", "!!", "--"
PROBE_S = 20.0

Say = Callable[[str, str], None]


def install_hint(engine: str | None) -> str:
    """How to install ``engine`` (or either), by system."""
    if engine == "docker":
        return (
            "install Docker (Debian, Ubuntu: sudo apt-get install docker.io; Fedora: sudo dnf "
            "install moby-engine; Arch: sudo pacman -S docker; macOS: Docker Desktop, or brew "
            "install --cask docker)"
        )
    what = "install Podman" if engine == "podman" else "install Podman (or Docker)"
    return (
        f"{what} (Debian, Ubuntu: sudo apt-get install podman runc; Fedora: sudo dnf install "
        "podman; Arch: sudo pacman -S podman; macOS: brew install podman, then podman machine "
        "init and podman machine start)"
    )


def built_tag(prefix: str, workspace: Path, source: Path) -> str | None:
    """The tag the container backend builds ``source`` into (``container.built_tag``); None
    when it cannot be read."""
    try:
        return container_tag(prefix, workspace, source)
    except EngineError:
        return None


def report(
    execution: ExecutionSettings,
    workspace: Path,
    heron_home: Path,
    environment: Mapping[str, str],
    say: Say,
    *,
    source: str = "[execution]",
) -> None:
    """The doctor's lines for where commands run in ``workspace``; the engine is called with
    ``environment`` (Heron's, secrets scrubbed), as sessions call it."""
    if execution.backend != "container":
        say(
            OK,
            f"commands in {workspace}: run on this machine (backend local, from {source}; "
            "`heron setup container` runs them in a container)",
        )
        return
    say(OK, f"commands in {workspace}: run in a container (backend container, from {source})")
    try:
        name, path = find_engine(execution.engine)
    except EngineError:
        missing = execution.engine or "podman or docker"
        say(
            PROBLEM,
            f"container engine: {missing} not found on PATH; {install_hint(execution.engine)}",
        )
        return
    engine = Engine(
        name,
        path,
        state=heron_home / "containers",
        environment=environment,
        options=execution.engine_options,
    )
    try:
        version = anyio.run(_probe, engine)
    except EngineError as exc:
        text = " ".join(str(exc).split())
        say(PROBLEM, f"container engine: {name} at {path} does not answer: {text}")
        return
    say(OK, f"container engine: {name} {version} at {path}")
    applied = ", ".join(FIXES[fix] for fix in engine.fixes)
    if applied:
        say(NOTE, f"container engine: settings Heron applied on this machine: {applied}")
    _image(execution, workspace, engine, say)
    _container(workspace, heron_home, engine, say)


async def _probe(engine: Engine) -> str:
    await engine.call("info", seconds=PROBE_S)  # answers only when the engine can be used
    return await engine.probe()


def _image(execution: ExecutionSettings, workspace: Path, engine: Engine, say: Say) -> None:
    if execution.image:
        if _image_exists(engine, execution.image):
            say(OK, f"container image: {execution.image} (here)")
        else:
            say(
                NOTE,
                f"container image: {execution.image}, not here yet: the first command pulls it",
            )
        return
    if execution.dockerfile is not None:
        _built(
            engine, built_tag("heron", workspace, execution.dockerfile), execution.dockerfile, say
        )
        return
    found = find_devcontainer(workspace)
    if found is None:
        say(
            PROBLEM,
            "container image: none; set one (`heron setup container --image NAME` or "
            "--dockerfile PATH) or add .devcontainer/devcontainer.json",
        )
        return
    cli = devcontainer_cli((workspace,))
    if cli is None and not _image_exists(engine, built_tag("heron-dev", workspace, found) or ""):
        say(
            PROBLEM,
            f"container image: from {found}, which needs the dev container CLI: install it "
            "(npm install -g @devcontainers/cli), or set image or dockerfile",
        )
        return
    _built(engine, built_tag("heron-dev", workspace, found), found, say)


def _built(engine: Engine, tag: str | None, source: Path, say: Say) -> None:
    if tag is None:
        say(PROBLEM, f"container image: {source} cannot be read")
    elif _image_exists(engine, tag):
        say(OK, f"container image: built from {source} as {tag}")
    else:
        say(
            NOTE,
            f"container image: from {source}, not built yet: the first command builds it "
            "(this can take minutes)",
        )


def _image_exists(engine: Engine, name: str) -> bool:
    done = anyio.run(lambda: engine.call("image", "inspect", name, check=False, seconds=PROBE_S))
    return done.code == 0


def _container(workspace: Path, heron_home: Path, engine: Engine, say: Say) -> None:
    name = ContainerSpec((workspace,), Path.home(), heron_home).name
    found = anyio.run(
        lambda: engine.call(
            "ps", "-a", "--filter", f"label={LABEL_WORKSPACE}={workspace}",
            "--format", "{{.Names}} {{.State}}",
            check=False, seconds=PROBE_S,
        )
    )  # fmt: skip
    rows = [line.split(maxsplit=1) for line in found.stdout.splitlines() if line.strip()]
    if found.code != 0 or not rows:
        say(NOTE, f"container: {name} absent; the first command starts it")
        return
    for row in rows:
        state = (row[1] if len(row) > 1 else "unknown").split()[0].lower()
        if state in ("running", "up"):
            say(OK, f"container: {row[0]} running")
        else:
            say(NOTE, f"container: {row[0]} {state}; the next command starts it again")
