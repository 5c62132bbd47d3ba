"""One session's sandbox: which folders its commands may write, what they may not see, its
private temp folder, and how to tell that the sandbox refused something.

``launch`` wraps a command line for the mechanism of this machine (or leaves it as it is,
minus secret variables, when there is none); ``release`` tidies up after it; ``refusal``
reads a failed command's output for the sandbox's fingerprints, so the user can be offered to
run it again outside. Paths come from ``safety.paths``, the same lists the edit tools and the
command judgement use.

Missing protected paths: bubblewrap can only protect a path that exists, so for a missing
``.vscode`` it mounts an empty read-only folder there, which creates an empty folder on disk
while the command runs. ``release`` removes it again once no command of the session uses it,
and only with ``rmdir``, which never removes anything that was put inside. This is done for
the folders whose contents can make git, an editor or Heron run programs (``MISSING_GUARDED``;
git passes over an empty ``.git``); a missing ``.env``, ``.envrc`` or ``.gitmodules`` is not
stood in for, because a folder in its place would break the programs that read them.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from msgspec import Struct

from agent_core.safety.paths import CREDENTIAL_STORES, WRITABLE_CACHES, protected_in
from agent_core.safety.process import protect_own_memory
from agent_core.safety.safe_open import UnsafeFile, read_inside
from agent_core.safety.sandbox.detect import Availability
from agent_core.safety.sandbox.policy import SandboxPolicy
from agent_core.safety.sandbox.settings import SandboxSettings
from agent_core.safety.sandbox.tether import tethered

ENV = "/usr/bin/env"
DOT_GIT_BYTES = 4096  # a worktree's or submodule's .git file: one gitdir line
# Sockets of services that would do for a sandboxed process what it may not do itself.
SYSTEM_SOCKETS = (
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/podman",
    "/run/containerd",
    "/run/dbus",
    "/var/run/dbus",
    "/run/systemd/private",
)
NETWORK_FAILURES = (  # looked for only when the network is off: then the sandbox is the cause
    "Network is unreachable",
    "Connection refused",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "getaddrinfo",
    "EAI_AGAIN",
    "ENETUNREACH",
)
RESCAN_S = 30.0
# Heron's own Python: scripts run on it (execute_code's strict mode), wherever it is installed.
HERONS_OWN = tuple(
    Path(p) for p in dict.fromkeys((sys.prefix, sys.base_prefix, os.path.realpath(sys.executable)))
)
STATE_PREFIX = "heron-sandbox-"  # then the pid of the Heron that made it
PLACEHOLDERS = "placeholders"  # in the state folder: the stand-ins this process created
MISSING_GUARDED = (".git", ".vscode", ".zed", ".idea", ".heron")
_READ_ONLY_PATH = re.compile(r"'?(/[^'\s:]+)'?: Read-only file system")


class Launch(Struct, frozen=True):
    argv: list[str]
    confined: bool  # inside the sandbox
    placeholders: tuple[Path, ...] = ()  # empty folders the sandbox may create for it


class Launcher(Protocol):
    """What the tools ask of ``context.sandbox``: how a command line runs confined.
    ``Confinement`` (the OS sandbox) is the local one; ``agent_core.execution``'s
    ``ContainerLauncher`` stands in for it where the container is the sandbox."""

    def notice(self) -> str | None: ...
    def launch(
        self,
        argv: Sequence[str],
        *,
        writable: bool,
        extra: Sequence[Path] = (),
        needs: Sequence[Path] = (),
        tether: bool = True,
    ) -> Launch: ...
    def unconfined(self, argv: Sequence[str], *, tether: bool = True) -> Launch: ...
    def release(self, launch: Launch) -> None: ...
    def refusal(self, output: str) -> str | None: ...


class Confinement:
    def __init__(
        self,
        availability: Availability,
        settings: SandboxSettings,
        roots: tuple[Path, ...],
        *,
        home: Path,
        heron_home: Path,
        scrubbed: Sequence[str] = (),
    ) -> None:
        """``scrubbed``: the names of the secret variables commands must not inherit (an
        editor's terminal starts from the editor's environment, not Heron's)."""
        if not settings.enabled:
            availability = Availability(None, "it is turned off ([sandbox] enabled = false)")
        self.availability = availability
        self._mechanism = availability.mechanism
        self._settings, self._roots = settings, roots
        self._home, self._heron_home = home, heron_home
        self._unset = tuple(scrubbed)
        self._state: Path | None = None
        self._in_use: Counter[Path] = Counter()
        self._scans: dict[Path, tuple[list[Path], float]] = {}
        self._told = False

    @property
    def active(self) -> bool:
        return self._mechanism is not None

    @property
    def sandboxed(self) -> bool:
        """Whether code may run without the questions a missing sandbox adds."""
        return self.active or not self._settings.required

    def describe(self) -> str:
        """One line for the mode list, the notice and ``heron doctor``."""
        if self._mechanism is not None:
            network = "" if self._settings.network == "allow" else ", no network"
            return f"commands run in a sandbox ({self._mechanism.name}{network})"
        why = self.availability.problem or "none is available"
        then = "commands ask first" if self._settings.required else "commands run unconfined"
        return f"no sandbox ({why}): {then}"

    def notice(self) -> str | None:
        """What to tell the user once, on the first command of a session without a sandbox."""
        if self.active or self._told:
            return None
        self._told = True
        remedy = f" To get one, {self.availability.remedy}." if self.availability.remedy else ""
        return f"{self.describe()}.{remedy}"

    def launch(
        self,
        argv: Sequence[str],
        *,
        writable: bool,
        extra: Sequence[Path] = (),
        needs: Sequence[Path] = (),
        tether: bool = True,
    ) -> Launch:
        """``argv`` as it runs: in the sandbox (the workspace and ``extra`` writable unless
        ``writable`` is False; ``needs`` visible), or outside it when there is none. Either
        way it dies with Heron (``tether=False``: a call Heron waits for, with a time limit,
        need not pay for that outside bubblewrap)."""
        protect_own_memory()
        if self._mechanism is None:
            return self.unconfined(argv, tether=tether)
        policy = self.policy(writable=writable, extra=extra, needs=needs)
        if fresh := [p for p in policy.uncreatable if not self._in_use[p]]:
            with (self._private()[0].parent / PLACEHOLDERS).open("a", encoding="utf-8") as log:
                log.writelines(f"{path}\n" for path in fresh)  # for the sweep, after a crash
        self._in_use.update(policy.uncreatable)
        command = self._mechanism.command(argv, policy, self._unset)
        if tether and not self._mechanism.dies_with_parent:
            command = tethered(command, os.getpid())
        return Launch(command, True, policy.uncreatable)

    def unconfined(self, argv: Sequence[str], *, tether: bool = True) -> Launch:
        """``argv`` outside the sandbox: only the secret variables are taken away; tethered to
        Heron, so that what it starts dies with Heron (``sandbox/tether.py``)."""
        protect_own_memory()
        unset = [part for name in self._unset for part in ("-u", name)]
        command = [ENV, *unset, *argv] if unset else list(argv)
        return Launch(tethered(command, os.getpid()) if tether else command, False)

    def release(self, launch: Launch) -> None:
        """The launched process is gone: remove the placeholders nothing else uses."""
        for path in launch.placeholders:
            self._in_use[path] -= 1
            if self._in_use[path] <= 0:
                del self._in_use[path]
                with contextlib.suppress(OSError):
                    path.rmdir()  # only if empty; never what someone put inside

    def close(self) -> None:
        for path in list(self._in_use):
            with contextlib.suppress(OSError):
                path.rmdir()
        self._in_use.clear()
        if self._state is not None:
            shutil.rmtree(self._state, ignore_errors=True)
            self._state = None

    def refusal(self, output: str) -> str | None:
        """Why the sandbox stopped a command that printed ``output``, or None."""
        if self._mechanism is None:
            return None
        if any(marker in output for marker in self._mechanism.refusals):
            found = _READ_ONLY_PATH.search(output)
            where = f" ({found.group(1)})" if found else ""
            return (
                f"it tried to change something{where} outside what sandboxed commands may "
                "write (the workspace, a private temp folder and the package caches) or a "
                "protected path"
            )
        for path in self.hidden():
            if str(path) in output or self._shown(path) in output:
                return f"it needs {self._shown(path)}, which the sandbox hides"
        if self._settings.network == "deny" and any(s in output for s in NETWORK_FAILURES):
            return 'sandboxed commands have no network ([sandbox] network = "deny")'
        return None

    # The policy.

    def policy(
        self, *, writable: bool, extra: Sequence[Path] = (), needs: Sequence[Path] = ()
    ) -> SandboxPolicy:
        temp, empty = self._private()
        roots = tuple(r for r in (*self._roots, *extra) if r.is_dir())
        visible = tuple(dict.fromkeys((*roots, *_under_private_tmp((*needs, *HERONS_OWN)))))
        roots = roots if writable else ()
        folders = (*roots, *self._caches()) if writable else ()
        protected = dict.fromkeys(p for root in roots for p in self._protected(root))
        existing = tuple(p for p in protected if os.path.lexists(p))
        guarded = [root / name for root in roots for name in MISSING_GUARDED]
        missing = tuple(p for p in guarded if not os.path.lexists(p))
        return SandboxPolicy(
            visible=visible,
            writable=folders,
            read_only=existing,
            uncreatable=missing,
            hidden=self.hidden(),
            temp=temp,
            empty=empty,
            network=self._settings.network == "allow",
        )

    def hidden(self) -> tuple[Path, ...]:
        candidates = [self._home / name for name in CREDENTIAL_STORES]
        candidates += [self._heron_home, Path(f"/run/user/{os.getuid()}")]
        candidates += [Path(p) for p in SYSTEM_SOCKETS]
        candidates += [Path(p).expanduser() for p in self._settings.hidden]
        found = dict.fromkeys(p.resolve() for p in candidates if os.path.lexists(p))  # /var/run…
        return tuple(p for p in found if not any(r.is_relative_to(p) for r in self._roots))

    def _protected(self, root: Path) -> list[Path]:
        """The protected paths of a root, looked for again at most every ``RESCAN_S``: a scan
        of a large tree costs more than the sandbox itself, and what a command creates, the
        same command could already change."""
        scanned, at = self._scans.get(root, ([], -RESCAN_S))
        if time.monotonic() - at >= RESCAN_S:
            scanned = protected_in(root, self._home)
            gitdir = _gitdir(root / ".git")
            if gitdir is not None and gitdir.is_relative_to(root):
                scanned.append(gitdir)
            self._scans[root] = (scanned, time.monotonic())
        return scanned

    def _caches(self) -> list[Path]:
        if self._home.is_dir():  # the standard place for caches: made when missing
            (self._home / ".cache").mkdir(exist_ok=True)
        named = [self._home / c for c in WRITABLE_CACHES]
        named += [Path(p).expanduser() for p in self._settings.writable]
        return [p for p in named if p.is_dir()]

    def _private(self) -> tuple[Path, Path]:
        if self._state is None:
            sweep_leftovers()
            self._state = Path(tempfile.mkdtemp(prefix=f"{STATE_PREFIX}{os.getpid()}-"))
            (self._state / "tmp").mkdir()
            (self._state / "empty").mkdir(mode=0o555)
        return self._state / "tmp", self._state / "empty"

    def _shown(self, path: Path) -> str:
        if path.is_relative_to(self._home):
            return f"~/{path.relative_to(self._home)}"
        return str(path)


@functools.cache  # once per process
def sweep_leftovers() -> None:
    """Remove what sandboxes of Heron processes that are gone left behind (a killed Heron
    closes nothing): their private folders, and the stand-in folders listed in them (only if
    still empty)."""
    for state in Path(tempfile.gettempdir()).glob(f"{STATE_PREFIX}*-*"):
        pid = state.name.removeprefix(STATE_PREFIX).split("-", 1)[0]
        if not pid.isdigit() or _alive(int(pid)):
            continue
        with contextlib.suppress(OSError):
            for line in (state / PLACEHOLDERS).read_text(encoding="utf-8").splitlines():
                with contextlib.suppress(OSError):
                    Path(line).rmdir()
        shutil.rmtree(state, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's
    return True


def _under_private_tmp(paths: Sequence[Path]) -> list[Path]:
    """What of ``paths`` the sandbox's private /tmp would hide (existing folders only)."""
    temp = Path("/tmp").resolve()  # where the private one is mounted
    found = [p.resolve() for p in paths if p.exists()]
    return [p if p.is_dir() else p.parent for p in found if p.is_relative_to(temp)]


def _gitdir(dot_git: Path) -> Path | None:
    """Where a ``.git`` file (a worktree's, a submodule's) points, or None."""
    if not dot_git.is_file():
        return None
    with contextlib.suppress(OSError, UnsafeFile, UnicodeDecodeError):  # safe_open: never waits
        text = read_inside(dot_git, [dot_git.parent], DOT_GIT_BYTES).data.decode("utf-8").strip()
        if text.startswith("gitdir:"):
            return (dot_git.parent / text.removeprefix("gitdir:").strip()).resolve()
    return None
