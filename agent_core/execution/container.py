"""One container per workspace: found by a name and labels derived from the workspace's path
(so another client, or a later Heron, reuses it), created from the configured image or a
Dockerfile built once, started on first use, removed on close.

What the container sees of the host: the workspace roots at the same absolute paths (so paths
in tool calls, diffs and the editor agree), their protected paths read-only, and a private
folder at ``/run/heron`` for the command server. Nothing else: no credential store, no Heron
home, no engine socket (a credential store or Heron's home inside a root is covered by an empty
folder, or /dev/null), no variable of Heron's environment; the network the settings give
(``[execution] network``, by default as ``[sandbox] network``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import shutil
import stat
import tempfile
from collections import deque
from collections.abc import Sequence
from pathlib import Path

import anyio
from msgspec import Struct

from agent_core.execution.engine import TAIL_LINES, Engine, EngineError, Progress
from agent_core.execution.server import CONTAINER_DIR
from agent_core.safety.paths import CREDENTIAL_STORES, protected_in
from agent_core.safety.safe_open import UnsafeFile, read_from, why_unreadable

log = logging.getLogger("heron.execution")

LABEL_WORKSPACE = "heron.workspace"
LABEL_SPEC = "heron.spec"
SCRIPTS_DIR = "/run/heron-scripts"  # execute_code's run folders, inside
KEEP_ALIVE = ("tail", "-f", "/dev/null")  # the container's main process, under --init
START_TIMEOUT_S = 300.0
# A long-lived process with stdio pipes (a language server), run by ``exec -i``: killing the
# exec client leaves what it runs running inside, but its stdin then closes. So ``argv`` runs in
# a process group of its own, reading a FIFO that ``cat`` feeds from stdin; when stdin closes
# (the client killed, or Heron gone), the group gets SIGTERM, then SIGKILL. Only the process
# holds stdout: it closes when the process ends, as the host expects.
TETHERED = r"""
f=${TMPDIR:-/tmp}/heron-tether.$$
rm -f "$f"; mkfifo -m 600 "$f" || exit 127
setsid "$@" <"$f" & p=$!
exec 3>"$f" >/dev/null; rm -f "$f"
cat >&3
exec 3>&-
kill -TERM -$p 2>/dev/null && { sleep 1; kill -KILL -$p 2>/dev/null; }
exit 0
"""
FIX_ATTEMPTS = 6
SOURCE_CAP = 1024 * 1024  # a Dockerfile or devcontainer.json is far smaller


class ContainerSpec(Struct, frozen=True):
    """What the container of a workspace is made of."""

    roots: tuple[Path, ...]
    home: Path  # the user's home: its credential stores are never shown
    heron_home: Path
    image: str | None = None
    dockerfile: Path | None = None
    devcontainer: Path | None = None  # the workspace's devcontainer.json, built by the CLI
    network: str = "none"
    run_options: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """The workspace's id: its first root's path, hashed."""
        return workspace_key(self.roots[0])

    @property
    def name(self) -> str:
        slug = re.sub(r"[^a-z0-9_.-]+", "-", self.roots[0].name.lower()).strip("-.") or "root"
        return f"heron-{slug[:40]}-{self.key}"

    @property
    def scripts(self) -> Path:
        """Where execute_code's run folders are on the host: a short path, since a script's
        tool-call socket lives there (a socket's path has at most 107 bytes)."""
        return Path(tempfile.gettempdir()) / f"heron-scripts-{os.getuid()}-{self.key}"

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
    options += ["-v", f"{spec.scripts}:{SCRIPTS_DIR}:rw"]
    return [*options, "-v", f"{run_dir}:{CONTAINER_DIR}:rw"]


class Container:
    """The container of one workspace, made when first needed."""

    def __init__(self, engine: Engine, spec: ContainerSpec) -> None:
        if not (spec.image or spec.dockerfile or spec.devcontainer):
            raise EngineError(
                "The container backend needs [execution] image or dockerfile, or a "
                ".devcontainer/devcontainer.json in the workspace."
            )
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

    def tethered_argv(self, cwd: Path, argv: Sequence[str]) -> list[str]:
        """The host's command line running ``argv`` in the container (up already) in ``cwd``
        with stdio pipes, killed inside when its exec client goes (``TETHERED``)."""
        return self.engine.exec_argv(self.name, str(cwd), ["sh", "-c", TETHERED, "sh", *argv])

    async def close(self) -> None:
        """Stop and remove the container, unless another live Heron process uses it too (each
        user leaves a file named by its pid in the state folder's ``owners``)."""
        mine = self._owners / str(os.getpid())
        if not mine.exists():  # never started by this process: not ours to remove
            return
        mine.unlink()
        if others := live_owners(self._owners):
            log.info("leaving container %s to Heron process %s", self.name, others[0])
        else:
            with anyio.CancelScope(shield=True):
                await self.engine.call(*self.engine.remove_args(self.name), check=False)
            shutil.rmtree(self.spec.scripts, ignore_errors=True)  # execute_code's, now unused
        self._ready = False

    @property
    def _owners(self) -> Path:
        return self.spec.state / "owners"

    async def _bring_up(self, progress: Progress | None) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.run_dir.chmod(0o700)
        (self.spec.state / "empty").mkdir(mode=0o500, exist_ok=True)
        self._owners.mkdir(exist_ok=True)
        private_folder(self.spec.scripts)
        (self._owners / str(os.getpid())).touch()
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
        for stale in self.run_dir.iterdir():  # an earlier container's command files, scripts
            if stale.is_dir() and not stale.is_symlink():
                shutil.rmtree(stale, ignore_errors=True)
            else:
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
        if self.spec.devcontainer is not None:
            return await self._devcontainer_image(self.spec.devcontainer, progress)
        dockerfile = self.spec.dockerfile
        assert dockerfile is not None
        tag = await anyio.to_thread.run_sync(built_tag, "heron", self.spec.roots[0], dockerfile)
        if (await self.engine.call("image", "inspect", tag, check=False)).code == 0:
            return tag
        if progress is not None:
            await progress(f"Building the image from {dockerfile} (this can take minutes)")
        await self.engine.build(tag, dockerfile, progress)
        return tag

    async def _devcontainer_image(self, config: Path, progress: Progress | None) -> str:
        """The image the dev container CLI builds from the workspace's ``devcontainer.json``
        (features and all), tagged by the file's content: built once."""
        tag = await anyio.to_thread.run_sync(built_tag, "heron-dev", self.spec.roots[0], config)
        if (await self.engine.call("image", "inspect", tag, check=False)).code == 0:
            return tag
        cli = devcontainer_cli(self.spec.roots)
        if cli is None:
            raise EngineError(
                f"{config} needs the dev container CLI, which is not installed (or not on PATH): "
                "install it (npm install -g @devcontainers/cli), or set [execution] image or "
                "dockerfile for this workspace."
            )
        if progress is not None:
            await progress(f"Building the dev container from {config} (this can take minutes)")
        await build_devcontainer(self.engine, cli, self.spec.roots[0], config, tag, progress)
        return tag

    def _spec_label(self, image: str) -> str:
        parts = [
            image,
            SCRIPTS_DIR,
            self.spec.network,
            *map(str, self.spec.roots),
            *self.spec.run_options,
        ]
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:12]


def workspace_key(root: Path) -> str:
    """A workspace's id in names and tags: its root's path, hashed."""
    return hashlib.sha256(str(root).encode()).hexdigest()[:12]


def built_tag(prefix: str, root: Path, source: Path) -> str:
    """The tag an image built from ``source`` (a Dockerfile: ``heron``; a devcontainer.json:
    ``heron-dev``) gets for the workspace at ``root``: its key and the file's content, so that
    an edited file builds anew. A file in the workspace is read as the repository's (inside
    the root after links, regular, capped, never blocking); one outside it, as the user's own.
    ``EngineError`` when it cannot be read."""
    inside = root if source.is_relative_to(root) else None
    try:
        content = read_from(source, inside, SOURCE_CAP, whole=True).data
    except (OSError, UnsafeFile) as unreadable:
        raise EngineError(f"{source}: {why_unreadable(unreadable)}") from None
    return f"localhost/{prefix}-{workspace_key(root)}:{hashlib.sha256(content).hexdigest()[:12]}"


def find_devcontainer(root: Path) -> Path | None:
    """The workspace's ``.devcontainer/devcontainer.json``, else its ``.devcontainer.json``."""
    for path in (root / ".devcontainer" / "devcontainer.json", root / ".devcontainer.json"):
        if path.is_file():
            return path
    return None


def devcontainer_cli(roots: Sequence[Path]) -> str | None:
    """The ``devcontainer`` program, found only in absolute ``PATH`` folders outside the
    workspace (a repository may plant one, as in ``node_modules/.bin``)."""
    folders = [
        folder
        for folder in os.get_exec_path()
        if Path(folder).is_absolute() and not any(Path(folder).is_relative_to(r) for r in roots)
    ]
    return shutil.which("devcontainer", path=os.pathsep.join(folders))


async def build_devcontainer(
    engine: Engine, cli: str, workspace: Path, config: Path, tag: str, progress: Progress | None
) -> None:
    """``devcontainer build`` into ``tag`` with the engine's settings (its ``containers.conf``);
    EngineError naming ``config`` and with the CLI's message when it fails."""
    argv = [cli, "build", "--workspace-folder", str(workspace), "--image-name", tag]
    argv += ["--config", str(config), "--docker-path", engine.path]
    tail: deque[str] = deque(maxlen=TAIL_LINES)
    outcome: dict[str, object] = {}

    async def line(text: str) -> None:
        nonlocal outcome
        if text.startswith("{") and '"outcome"' in text:
            with contextlib.suppress(ValueError):
                outcome = json.loads(text)
            return
        tail.append(text)
        if progress is not None and "STEP" in text:
            await progress(text.partition("] ")[2] or text)

    code = await engine.follow(argv, line)
    if code != 0 or outcome.get("outcome") != "success":
        message = str(outcome.get("message") or "\n".join(tail))
        raise EngineError(
            f"{config} is invalid or could not be built (devcontainer build exited with "
            f"{code}): {message}\nFix {config.name}, or set [execution] image for this workspace."
        )


def private_folder(path: Path) -> Path:
    """``path``, a folder of ours alone (made if missing): never one another user planted."""
    path.mkdir(mode=0o700, exist_ok=True)
    status = path.lstat()
    if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.getuid():
        raise EngineError(f"{path} is not a folder of this user's: remove it and try again.")
    path.chmod(0o700)
    return path


def live_owners(folder: Path) -> list[int]:
    """The pids named in ``folder`` whose processes still run (the files of dead ones go)."""
    alive: list[int] = []
    for entry in folder.iterdir() if folder.is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            os.kill(int(entry.name), 0)
        except ProcessLookupError:
            entry.unlink(missing_ok=True)
            continue
        except PermissionError:
            pass  # alive, another user's
        alive.append(int(entry.name))
    return alive
