"""One container per workspace: found by a name and labels derived from the workspace's path
(so another client, or a later Heron, reuses it), created from the configured image or a
Dockerfile built once, started on first use, removed on close.

What the container sees of the host: the workspace roots at the same absolute paths (so paths
in tool calls, diffs and the editor agree), their protected paths read-only, and a private
folder at ``/run/heron`` for the command server. Nothing else: no credential store, no Heron
home, no engine socket (a credential store or Heron's home inside a root is covered by an empty
folder, or /dev/null), no variable of Heron's environment, and no network unless configured.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass
from pathlib import Path

import anyio

from agent_core.execution.engine import Engine, EngineError, Progress
from agent_core.execution.server import CONTAINER_DIR
from agent_core.safety.paths import CREDENTIAL_STORES, protected_in

log = logging.getLogger("heron.execution")

LABEL_WORKSPACE = "heron.workspace"
LABEL_SPEC = "heron.spec"
KEEP_ALIVE = ("tail", "-f", "/dev/null")  # the container's main process, under --init
START_TIMEOUT_S = 300.0
FIX_ATTEMPTS = 6


@dataclass(frozen=True)
class ContainerSpec:
    """What the container of a workspace is made of."""

    roots: tuple[Path, ...]
    home: Path  # the user's home: its credential stores are never shown
    heron_home: Path
    image: str | None = None
    dockerfile: Path | None = None
    network: str = "none"
    run_options: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """The workspace's id: its first root's path, hashed."""
        return hashlib.sha256(str(self.roots[0]).encode()).hexdigest()[:12]

    @property
    def name(self) -> str:
        slug = re.sub(r"[^a-z0-9_.-]+", "-", self.roots[0].name.lower()).strip("-.") or "root"
        return f"heron-{slug[:40]}-{self.key}"

    @property
    def state(self) -> Path:
        """Heron's folder for this workspace's container (the command server's files)."""
        return self.heron_home / "containers" / self.key

    def hidden(self) -> list[Path]:
        """Paths inside the roots that must not be seen: credential stores, Heron's home."""
        candidates = [self.home / store for store in CREDENTIAL_STORES] + [self.heron_home]
        return [
            path
            for path in candidates
            if any(path.is_relative_to(root) for root in self.roots) and path.exists()
        ]


def mounts(spec: ContainerSpec, run_dir: Path) -> list[str]:
    """The ``run`` options that show the container what it may see of the host."""
    options: list[str] = []
    if odd := [str(root) for root in spec.roots if ":" in str(root) or "," in str(root)]:
        raise EngineError(f"A workspace path with ':' or ',' cannot be mounted: {odd[0]}")
    for root in spec.roots:
        options += ["-v", f"{root}:{root}:rw"]
        options += [f"-v={path}:{path}:ro" for path in protected_in(root, spec.home)]
    empty = spec.state / "empty"  # a tmpfs would not do: Podman copies what it covers into it
    for path in spec.hidden():
        options += ["-v", f"{empty if path.is_dir() else '/dev/null'}:{path}:ro"]
    return [*options, "-v", f"{run_dir}:{CONTAINER_DIR}:rw"]


class Container:
    """The container of one workspace, made when first needed."""

    def __init__(self, engine: Engine, spec: ContainerSpec) -> None:
        if not (spec.image or spec.dockerfile):
            raise EngineError("[execution] needs image or dockerfile for the container backend")
        self.engine = engine
        self.spec = spec
        self.name = spec.name
        self.run_dir = spec.state / "run"
        self._lock = anyio.Lock()
        self._ready = False
        self.reused = False  # found running, made by another client or an earlier Heron

    async def ensure(self, progress: Progress | None = None) -> None:
        """Make sure the container runs: reuse it, start it, or create it (building the image
        first when there is a Dockerfile)."""
        async with self._lock:
            if not self._ready:
                await self._bring_up(progress)
                self._ready = True

    async def close(self) -> None:
        """Stop and remove the container."""
        with anyio.CancelScope(shield=True):
            await self.engine.call(*self.engine.remove_args(self.name), check=False)
        self._ready = False

    async def _bring_up(self, progress: Progress | None) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.run_dir.chmod(0o700)
        (self.spec.state / "empty").mkdir(mode=0o500, exist_ok=True)
        image = await self._image(progress)
        spec_label = self._spec_label(image)
        found = await self.engine.call(
            "inspect", "--format",
            '{{.State.Running}} {{index .Config.Labels "' + LABEL_SPEC + '"}}', self.name,
            check=False,
        )  # fmt: skip
        running, _, label = found.stdout.strip().partition(" ")
        if found.code == 0 and label == spec_label:
            self.reused = True
            if running != "true":
                await self.engine.call("start", self.name, seconds=START_TIMEOUT_S)
            log.info("reusing container %s", self.name)
            return
        if found.code == 0:  # made for another configuration
            await self.engine.call(*self.engine.remove_args(self.name), check=False)
        for stale in self.run_dir.iterdir():  # an earlier container's command files
            stale.unlink(missing_ok=True)
        if progress is not None:
            await progress(f"Starting container {self.name} from {image}")
        await self._create(image, spec_label)

    async def _create(self, image: str, spec_label: str) -> None:
        for _ in range(FIX_ATTEMPTS):
            args = self._run_args(image, spec_label)  # again: a fix may add run options
            done = await self.engine.call(*args, seconds=START_TIMEOUT_S, check=False)
            if done.code == 0:
                return
            await self.engine.call(*self.engine.remove_args(self.name), check=False)
            if not self.engine.fix(done.stderr):
                raise self.engine.failure(args, done)
        raise EngineError(f"Could not start container {self.name}: too many failures.")

    def _run_args(self, image: str, spec_label: str) -> list[str]:
        return [
            "run", "-d", "--init", "--name", self.name,
            "--label", f"{LABEL_WORKSPACE}={self.spec.roots[0]}",
            "--label", f"{LABEL_SPEC}={spec_label}",
            "--network", self.spec.network,
            *mounts(self.spec, self.run_dir),
            "-w", str(self.spec.roots[0]),
            *self.engine.run_options(), *self.spec.run_options,
            image, *KEEP_ALIVE,
        ]  # fmt: skip

    async def _image(self, progress: Progress | None) -> str:
        if self.spec.image:
            return self.spec.image
        dockerfile = self.spec.dockerfile
        assert dockerfile is not None
        try:
            content = dockerfile.read_bytes()
        except OSError as unreadable:
            raise EngineError(f"[execution] dockerfile {dockerfile}: {unreadable}") from None
        tag = f"localhost/heron-{self.spec.key}:{hashlib.sha256(content).hexdigest()[:12]}"
        if (await self.engine.call("image", "inspect", tag, check=False)).code == 0:
            return tag
        if progress is not None:
            await progress(f"Building the image from {dockerfile} (this can take minutes)")
        await self.engine.build(tag, dockerfile, progress)
        return tag

    def _spec_label(self, image: str) -> str:
        parts = [image, self.spec.network, *map(str, self.spec.roots), *self.spec.run_options]
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:12]
