"""The container engine: which one (Podman, else Docker, or the one config names), how every
call is made (the argv prefix, the environment), and what a machine's defaults get wrong.

Podman's defaults fail on some machines for reasons one setting fixes (a runtime that cannot
work with the host's cgroups, resource limits above what the process may set, no systemd).
``call`` reads a failed call's message against ``KNOWN_FAILURES``, applies the fix it names,
logs which, and tries again. Podman gets the fixes through a private ``containers.conf``
(``CONTAINERS_CONF``, so ``podman build`` and the dev container CLI see them too) written
under Heron's home, where a later Heron finds them; Docker gets them as ``run`` options.
"""

from __future__ import annotations

import logging
import resource
import shutil
import subprocess
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import anyio

from agent_core.errors import ToolError
from agent_core.execution.settings import ENGINES
from agent_core.safety.paths import installed

log = logging.getLogger("heron.execution")

CALL_TIMEOUT_S = 120.0
BUILD_TIMEOUT_S = 3600.0
TAIL_LINES = 20
NPROC_CAP = 4096
CONF_NAME = "containers.conf"

# (a fragment of the engine's message, the fix that removes it); order does not matter
KNOWN_FAILURES: tuple[tuple[str, str], ...] = (
    ("cgroups in hybrid mode not supported", "runtime"),
    ("error setting rlimit", "ulimits"),
    ("setrlimit `RLIMIT_", "ulimits"),
    ("systemd not running on this host", "cgroup_manager"),
    ("cannot open sd-bus", "cgroup_manager"),
    ("journald", "events_logger"),
)
FIXES = {  # fix -> what it sets, in words for the log
    "runtime": 'runtime = "runc"',
    "cgroup_manager": 'cgroup_manager = "cgroupfs"',
    "events_logger": 'events_logger = "file"',
    "ulimits": "default_ulimits: nofile and nproc at the process's hard limits",
}
NOT_RUNNING = (
    "Cannot connect to the Docker daemon",
    "Cannot connect to Podman",
    "unable to connect to Podman socket",
    "Is the docker daemon running",
)

Progress = Callable[[str], Awaitable[None]]  # a line to show the user (a notice)


class EngineError(ToolError):
    """The container engine is missing, not running, or failed; the message says the fix."""


class Completed(NamedTuple):
    code: int
    stdout: str
    stderr: str


def find_engine(
    preferred: str | None, which: Callable[[str], str | None] = installed
) -> tuple[str, str]:
    """(name, path) of the engine to use: ``preferred``, else the first of ENGINES installed,
    found only in the absolute folders of ``PATH`` (never one a repository planted)."""
    names = (preferred,) if preferred else ENGINES
    for name in names:
        if path := which(name):
            return name, path
    if preferred:
        raise EngineError(
            f"[execution] engine = {preferred!r}, but {preferred} is not installed: install it "
            f"(Debian, Ubuntu: apt-get install {_package(preferred)}) or set engine to the other."
        )
    raise EngineError(
        "The container backend needs Podman or Docker, and neither is installed: install Podman "
        "(Debian, Ubuntu: apt-get install podman runc; Fedora: dnf install podman; macOS: brew "
        'install podman) or Docker, or set [execution] backend = "local".'
    )


def _package(name: str) -> str:
    return "podman runc" if name == "podman" else "docker.io"


def ulimits() -> tuple[str, str]:
    """``nofile`` and ``nproc`` at what this process may set (their hard limits, nproc capped)."""
    nofile = _hard(resource.RLIMIT_NOFILE, 1 << 20)
    nproc = min(_hard(resource.RLIMIT_NPROC, NPROC_CAP), NPROC_CAP)
    return f"nofile={nofile}:{nofile}", f"nproc={nproc}:{nproc}"


def _hard(which: int, unlimited: int) -> int:
    hard = resource.getrlimit(which)[1]
    return unlimited if hard == resource.RLIM_INFINITY else hard


def conf_text(fixes: Sequence[str]) -> str:
    """A ``containers.conf`` carrying ``fixes``."""
    lines = ["# Written by Heron: settings this machine's Podman needs (see heron.execution)"]
    if "ulimits" in fixes:
        nofile, nproc = ulimits()
        lines += ["[containers]", f'default_ulimits = ["{nofile}", "{nproc}"]']
    engine = [FIXES[fix] for fix in ("runtime", "cgroup_manager", "events_logger") if fix in fixes]
    if engine:
        lines += ["[engine]", *engine]
    return "\n".join(lines) + "\n"


def fixes_in(text: str) -> list[str]:
    """The fixes a ``containers.conf`` written by ``conf_text`` carries."""
    found = [fix for fix in ("runtime", "cgroup_manager", "events_logger") if FIXES[fix] in text]
    return (["ulimits"] if "default_ulimits" in text else []) + found


def known_fix(message: str) -> str | None:
    return next((fix for fragment, fix in KNOWN_FAILURES if fragment in message), None)


class Engine:
    """One container engine and how Heron calls it."""

    def __init__(
        self,
        name: str,
        path: str,
        *,
        state: Path,
        environment: Mapping[str, str],
        options: Sequence[str] = (),
    ) -> None:
        self.name = name
        self.path = path
        self.options = tuple(options)
        self._state = state  # Heron's folder for the engine: the containers.conf
        self._environment = dict(environment)
        self._conf = state / CONF_NAME
        self.fixes: list[str] = []
        if name == "podman" and self._conf.is_file():
            self.fixes = fixes_in(self._conf.read_text())

    @classmethod
    def find(
        cls,
        preferred: str | None,
        *,
        state: Path,
        environment: Mapping[str, str],
        options: Sequence[str] = (),
    ) -> Engine:
        name, path = find_engine(preferred)
        return cls(name, path, state=state, environment=environment, options=options)

    def argv(self, *args: str) -> list[str]:
        """The command line of one call: the engine, the configured options, ``args``."""
        return [self.path, *self.options, *args]

    def exec_argv(self, container: str, cwd: str, argv: Sequence[str]) -> list[str]:
        """The command line of one ``exec -i`` running ``argv`` in ``container`` with stdio
        pipes, for a caller that spawns it with an environment of its own: the engine's
        ``CONTAINERS_CONF`` goes on the command line."""
        prefix = ["/usr/bin/env", f"CONTAINERS_CONF={self._conf}"]
        fixed = self.name == "podman" and self.fixes
        return [*(prefix if fixed else []), *self.argv("exec", "-i", "-w", cwd, container, *argv)]

    def environment(self) -> dict[str, str]:
        env = dict(self._environment)
        if self.name == "podman" and self.fixes:
            env["CONTAINERS_CONF"] = str(self._conf)
        return env

    def run_options(self) -> list[str]:
        """Options ``run`` needs for the fixes (Docker has no containers.conf)."""
        if self.name == "podman" or "ulimits" not in self.fixes:
            return []
        return [option for limit in ulimits() for option in ("--ulimit", limit)]

    async def call(
        self, *args: str, seconds: float = CALL_TIMEOUT_S, check: bool = True
    ) -> Completed:
        """Run the engine with ``args``; EngineError when it fails and ``check``."""
        done = await self._call(args, seconds)
        if check and done.code != 0:
            raise self.failure(args, done)
        return done

    def fix(self, message: str) -> bool:
        """Apply the known fix for a failure that said ``message``; False when there is none
        (or it is applied already: the failure has another cause)."""
        fix = known_fix(message)
        return fix is not None and fix not in self.fixes and self._apply(fix, message)

    def remove_args(self, name: str) -> list[str]:
        """Arguments that remove container ``name`` at once, running or not."""
        return ["rm", "-f", "-t", "0", name] if self.name == "podman" else ["rm", "-f", name]

    async def probe(self) -> str:
        """The engine's version, or EngineError saying why it cannot be used."""
        done = await self.call("version", "--format", "{{.Client.Version}}", seconds=30)
        return done.stdout.strip()

    async def build(self, tag: str, dockerfile: Path, progress: Progress | None = None) -> None:
        """``build`` ``dockerfile`` (its folder is the context) as ``tag``; EngineError with the
        build's last lines when it fails."""
        args = ("build", "-t", tag, "-f", str(dockerfile), str(dockerfile.parent))
        tail: deque[str] = deque(maxlen=TAIL_LINES)

        async def line(text: str) -> None:
            tail.append(text)
            if progress is not None and text.startswith(("STEP", "Step", "#")):
                await progress(text)

        code = await self.follow(self.argv(*args), line)
        if code != 0:
            last = "\n".join(tail)
            raise EngineError(
                f"Building the image from {dockerfile} failed ({self.name} build exited with "
                f"{code}). Its last lines:\n{last}\nFix the Dockerfile, or set [execution] image."
            )

    async def follow(self, argv: Sequence[str], line: Callable[[str], Awaitable[None]]) -> int:
        """Run ``argv`` (a build: the engine's, or one that calls it) with the engine's settings,
        handing each line it prints (stdout and stderr together) to ``line``; its exit code.
        TimeoutError after ``BUILD_TIMEOUT_S``."""
        with anyio.fail_after(BUILD_TIMEOUT_S):
            async with await anyio.open_process(
                argv,
                env=self.environment(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
            ) as process:
                assert process.stdout is not None
                pending = b""
                async for chunk in process.stdout:
                    *lines, pending = (pending + chunk).split(b"\n")
                    for each in lines:
                        await line(each.decode("utf-8", "replace").rstrip())
                return await process.wait()

    def failure(self, args: Sequence[str], done: Completed) -> EngineError:
        message = (done.stderr or done.stdout).strip()
        last = "\n".join(message.splitlines()[-TAIL_LINES:])
        if any(fragment in message for fragment in NOT_RUNNING):
            start = (
                "start it (systemctl start docker, or open Docker Desktop)"
                if self.name == "docker"
                else "start it (podman machine start on macOS and Windows)"
            )
            return EngineError(f"{self.name} is installed but not running: {start}.\n{last}")
        options = " ".join(self.options) or "none"
        return EngineError(
            f"`{self.name} {' '.join(args[:2])}` failed (exit code {done.code}):\n{last}\n"
            f"Engine options from [execution] engine_options: {options}; settings Heron "
            f"applied: {', '.join(self.fixes) or 'none'}."
        )

    def _apply(self, fix: str, message: str) -> bool:
        if fix == "runtime" and shutil.which("runc") is None:
            log.warning("%s needs the runc runtime, which is not installed", self.name)
            return False
        if self.name != "podman" and fix != "ulimits":
            return False
        self.fixes.append(fix)
        if self.name == "podman":
            self._state.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._conf.write_text(conf_text(self.fixes))
        first = message.strip().splitlines()[-1] if message.strip() else ""
        log.warning("%s failed with %r; applying %s", self.name, first, FIXES[fix])
        return True

    async def _call(self, args: Sequence[str], seconds: float) -> Completed:
        try:
            with anyio.fail_after(seconds):
                done = await anyio.run_process(
                    self.argv(*args), env=self.environment(), check=False, stdin=subprocess.DEVNULL
                )
        except TimeoutError:
            raise EngineError(
                f"`{self.name} {' '.join(args[:2])}` did not answer in {seconds:g} s: is the "
                f"engine stuck? Try `{self.name} info`."
            ) from None
        return Completed(
            done.returncode,
            done.stdout.decode("utf-8", "replace"),
            done.stderr.decode("utf-8", "replace"),
        )
