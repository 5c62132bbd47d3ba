"""Git run on a shadow repository: its command line and environment, each process under a
watch, and what a failure says.

The shadow's git is pointed at the shadow with ``GIT_DIR`` and at the workspace with
``GIT_WORK_TREE``, with the hardening of ``safety.git`` and settings of its own. The git calls of
one piece of work (a snapshot, a listing) share one ``GitWatch``: one deadline, a stop callable
from another thread (a cancelled turn), each process in a group of its own that is killed whole.
A call that stalls has the workspace looked at for a file that makes git wait for ever
(``safety.blockers``), and git's first walk of a workspace has that look beside it from the
start; one found ends the work with the file named, and is remembered in the shadow
(``SUSPECTS``), so that ``blocker()`` tells the next snapshot, of any session, before git starts.
"""

from __future__ import annotations

import contextlib
import copy
import signal
import subprocess
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from agent_core.errors import HeronError
from agent_core.safety.blockers import (
    READ_BY_GIT,
    STALL_S,
    WALK_LIMIT_S,
    Blocker,
    because,
    find_blockers,
    known_blocker,
)
from agent_core.safety.git import ENVIRONMENT, GitWaitError, GitWatch, git_command

LIMIT_S = 20.0  # one piece of work's git calls (a snapshot, a listing), together
SUSPECTS = "heron-blockers"  # in the shadow: the files found making git wait, NUL-separated
IDENTITY = {
    "GIT_AUTHOR_NAME": "Heron",
    "GIT_AUTHOR_EMAIL": "heron@localhost",
    "GIT_COMMITTER_NAME": "Heron",
    "GIT_COMMITTER_EMAIL": "heron@localhost",
}
SHADOW_SETTINGS = (
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.quotepath=false",
    "core.splitIndex=true",  # staging a few files rewrites a small file, not the whole index
    "gc.auto=0",
)


class ShadowError(HeronError):
    """The shadow repository cannot be used (missing git, a corrupt repository, no disk, a
    git that does not end)."""


Started = tuple[Sequence[str], GitWatch, subprocess.Popen[bytes]]  # what it runs, under what


class ShadowGit:
    def __init__(self, path: Path, workspace: Path, environment: Mapping[str, str]) -> None:
        """``path``: the shadow; ``environment``: Heron's, secrets scrubbed."""
        self.path, self.workspace = path, workspace
        self._environment = {k: v for k, v in environment.items() if not k.startswith("GIT_")}
        self._watch: GitWatch | None = None  # None: each git call has its own deadline

    def watch(self, limit_s: float = LIMIT_S) -> GitWatch:
        """A deadline and a stop for one piece of work; a call that stalls has the workspace
        looked at for a file to blame."""
        return GitWatch(limit_s, stall_s=min(STALL_S, limit_s / 2), explain=self._explain)

    def watched(self, watch: GitWatch) -> ShadowGit:
        """This runner, its calls under ``watch``."""
        bound = copy.copy(self)
        bound._watch = watch
        return bound

    def current_watch(self) -> GitWatch:
        """The work's watch, or one for a call made outside any."""
        return self._watch or self.watch()

    def blocker(self) -> str | None:
        """Why git would wait for ever in this workspace, when it is known without a walk (a
        top-level file, or one found before); None when nothing is known. A few ``lstat``
        calls and one small read."""
        found = known_blocker(self.workspace, self._suspects())
        return because([found]) if found else None

    def run_looking(self, args: list[str]) -> bytes:
        """``run(args)`` with the workspace walked beside it for a file that makes git wait:
        one found ends the call at once, named. For git's first walk of a workspace, when
        nothing is known of it; the walk stops when git ends."""
        watch, done = self.current_watch(), threading.Event()

        def look() -> None:
            found = find_blockers(self.workspace, READ_BY_GIT, WALK_LIMIT_S, done)
            if found and not done.is_set():  # git is still walking: it waits on one of them
                self._remember(found)
                watch.stop(GitWaitError(because(found)))

        started = self.watched(watch).start(args)
        threading.Thread(target=look, name="heron-blockers", daemon=True).start()
        try:
            return self.collect(started)[0]
        finally:
            done.set()

    def text(self, *args: str, stdin: str | None = None) -> str:
        return self.run(list(args), stdin=stdin).decode("utf-8", "surrogateescape")

    def run(self, args: list[str], *, stdin: str | None = None, bare: bool = False) -> bytes:
        given = stdin.encode("utf-8", "surrogateescape") if stdin is not None else None
        return self.collect(self.start(args, bare=bare, piped=given is not None), given)[0]

    def run_together(self, *commands: Sequence[str]) -> list[bytes]:
        """Several read-only git commands at once; their outputs, in order."""
        started: list[Started] = []
        ended: list[tuple[bytes, bytes]] = []
        failed: GitWaitError | None = None
        try:
            for args in commands:
                started.append(self.start(list(args)))
        finally:  # every started git is waited for, whatever failed
            for _, watch, process in started:
                try:
                    ended.append(watch.wait(process))
                except GitWaitError as exc:  # the others were killed with it
                    failed = failed or exc
        if failed is not None:
            raise ShadowError(str(failed)) from failed
        for (args, _, process), (_, err) in zip(started, ended, strict=True):
            check(args, process.returncode or 0, err)
        return [out for out, _ in ended]

    def start(
        self, args: list[str], *, bare: bool = False, piped: bool = False, literal: bool = True
    ) -> Started:
        """Git running ``args`` on the shadow (``bare``: before the shadow exists), under the
        work's watch (or a watch of its own). ``literal``: paths are pathspecs without magic
        (off for commands that take plain paths and refuse any magic: ``check-ignore``)."""
        command, environment = self._invocation(args, bare=bare, literal=literal)
        watch = self.current_watch()
        try:
            process = watch.start(
                command, cwd=self.workspace, env=environment, piped=piped, label=f"git {args[0]}"
            )
        except OSError as exc:
            raise ShadowError(f"git could not run: {exc.strerror}") from exc
        except GitWaitError as exc:
            raise ShadowError(str(exc)) from exc
        return args, watch, process

    def collect(
        self, started: Started, stdin: bytes | None = None, *, succeeded: Sequence[int] = (0,)
    ) -> tuple[bytes, bytes]:
        """What a started git printed on stdout and stderr, once it has ended with one of the
        exit codes ``succeeded``."""
        args, watch, process = started
        try:
            out, err = watch.wait(process, stdin)
        except GitWaitError as exc:
            raise ShadowError(str(exc)) from exc
        if (process.returncode or 0) not in succeeded:
            check(args, process.returncode or 0, err)
        return out, err

    def _explain(self, limit_s: float) -> str | None:
        """Why a git call stalls, when a file in the workspace is to blame (remembered, so
        that later snapshots stop before git starts); looked for within ``limit_s``."""
        found = find_blockers(self.workspace, READ_BY_GIT, min(limit_s, WALK_LIMIT_S))
        if not found:
            return None
        self._remember(found)
        return because(found)

    def _suspects(self) -> list[str]:
        try:
            listed = (self.path / SUSPECTS).read_bytes()
        except OSError:
            return []
        return [p for p in listed.decode("utf-8", "surrogateescape").split("\0") if p]

    def _remember(self, found: Sequence[Blocker]) -> None:
        """Keep the files found for later snapshots (a lost write only costs a later stall)."""
        known = sorted({*self._suspects(), *(path for path, _ in found)})
        with contextlib.suppress(OSError):
            (self.path / SUSPECTS).write_bytes("\0".join(known).encode("utf-8", "surrogateescape"))

    def _invocation(
        self, args: list[str], *, bare: bool, literal: bool = True
    ) -> tuple[list[str], dict[str, str]]:
        """The git command line and environment for ``args`` on the shadow."""
        overrides = [*SHADOW_SETTINGS]
        exclude = self.workspace / ".git" / "info" / "exclude"
        if exclude.is_file():
            overrides.append(f"core.excludesFile={exclude}")
        command = git_command(args, overrides)
        if command is None:
            raise ShadowError("git is not installed, so Heron cannot keep checkpoints")
        environment: dict[str, str] = {
            **self._environment,
            **ENVIRONMENT,
            **IDENTITY,
        }
        if literal:
            environment["GIT_LITERAL_PATHSPECS"] = "1"  # a file named '*' is that file
        if not bare:
            environment["GIT_DIR"] = str(self.path)
            environment["GIT_WORK_TREE"] = str(self.workspace)
        return command, environment


def check(args: Sequence[str], returncode: int, err: bytes) -> None:
    """Raise the error a failed git ended with."""
    if returncode != 0:
        said = err.decode("utf-8", "replace").strip().splitlines()
        raise ShadowError(f"git {args[0]} failed: {said[-1] if said else ended(returncode)}")


def ended(returncode: int) -> str:
    """How a git that said nothing ended: its exit code, or the signal that stopped it."""
    if returncode >= 0:
        return f"exit code {returncode}"
    if -returncode == signal.SIGXFSZ:  # a file it wrote grew past the size limit
        return "a file grew past the file size limit (or the disk is full)"
    try:
        return f"stopped by {signal.Signals(-returncode).name}"
    except ValueError:
        return f"stopped by signal {-returncode}"
