"""A task's workspace: the copy it runs in, and the diff of what the run changed there.

The source is untrusted input, read and never run. A folder is copied with its links kept as
links (never followed out of it) and without FIFOs, sockets or devices, which would make a copy
wait or read a device. A repository is cloned (objects hard-linked where the file system
allows, so the copy stands on its own if the source is later cleaned up) and checked out at the
task's commit, with every option that would run a program switched off (``safety.git``): no
hooks, no filter or diff drivers, neither the system's nor the user's git configuration.

The diff is taken by a shadow repository of the batch's own (``checkpoints.shadow``), outside
the copy: the copy is snapshot before the run and after it, and the patch between the two is
byte-exact and binary-safe, whatever the run did to the copy's own ``.git`` (commits, resets)
and whether or not the copy is a repository at all. Like any snapshot it honours the copy's
``.gitignore`` files and leaves out files over ``MAX_FILE_SIZE``.

Every call blocks; the runner makes them in worker threads.
"""

from __future__ import annotations

import shutil
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import cast

from acp_server.batch.tasks import Task
from agent_core.checkpoints.shadow import ShadowRepository, Snapshot
from agent_core.checkpoints.shadow_git import ShadowError
from agent_core.errors import HeronError
from agent_core.safety.git import ENVIRONMENT, GitWaitError, GitWatch, git_command

CLONE_LIMIT_S = 600.0  # a clone and its checkout, together
SNAPSHOT_LIMIT_S = 300.0  # one snapshot of a copy (the first one reads every file)
MAX_FILE_SIZE = 50 * 1024 * 1024  # bytes: a larger file is left out of the diff
MAX_FILES = 500_000
LOCAL_CLONE = ("protocol.file.allow=always",)  # the hardening forbids every transport


class WorkspaceError(HeronError):
    """A task's copy could not be made, or its diff taken; the message says why."""


def make_copy(task: Task, destination: Path, environment: Mapping[str, str], skip: Path) -> None:
    """The task's workspace at ``destination`` (which must not exist yet); ``skip``: a folder
    never copied (the batch's output, when it lies inside the source)."""
    if task.workspace is not None:
        copy_folder(task.workspace, destination, skip)
    elif task.repository is not None and task.commit is not None:
        check_out(task.repository, task.commit, destination, environment)


def source_problem(task: Task) -> str | None:
    """What is wrong with the task's source before anything runs, or None."""
    if task.workspace is not None and not task.workspace.is_dir():
        return f"workspace {task.workspace} is not a folder"
    if task.repository is not None and not task.repository.is_dir():
        return f"repository {task.repository} is not a folder"
    return None


def copy_folder(source: Path, destination: Path, skip: Path) -> None:
    leave_out = skip.resolve()

    def ignored(folder: str, names: list[str]) -> set[str]:
        left: set[str] = set()
        for name in names:
            path = Path(folder) / name
            mode = path.lstat().st_mode
            special = not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode))
            if special or (stat.S_ISDIR(mode) and path.resolve() == leave_out):
                left.add(name)
        return left

    try:
        shutil.copytree(source, destination, symlinks=True, ignore=ignored)
    except (OSError, shutil.Error) as exc:
        raise WorkspaceError(f"cannot copy {source}: {_first_error(exc)}") from exc


def check_out(repository: Path, commit: str, destination: Path, env: Mapping[str, str]) -> None:
    watch = GitWatch(CLONE_LIMIT_S)
    destination.parent.mkdir(parents=True, exist_ok=True)
    _git(
        watch,
        destination.parent,
        ["clone", "--quiet", "--no-checkout", "--", str(repository), str(destination)],
        env,
    )
    _git(watch, destination, ["checkout", "--quiet", "--detach", commit, "--"], env)


class Changes:
    """What a run changes in a copy: ``before()`` the run, ``patch()`` after it."""

    def __init__(self, shadow_home: Path, copy: Path, environment: Mapping[str, str]) -> None:
        self._shadow = ShadowRepository(
            shadow_home, copy, environment, max_file_size=MAX_FILE_SIZE, max_files=MAX_FILES
        )
        self._before: str | None = None

    def before(self) -> None:
        self._before = self._snapshot().tree

    def patch(self) -> bytes:
        """The patch from the copy before the run to the copy now (empty: nothing changed)."""
        if self._before is None:
            raise WorkspaceError("no snapshot was taken before the run")
        after = self._snapshot()
        try:
            return self._shadow.patch(self._before, after.tree)
        except (ShadowError, GitWaitError) as exc:
            raise WorkspaceError(f"cannot diff the workspace: {exc}") from exc

    def _snapshot(self) -> Snapshot:
        shadow = self._shadow.watched(self._shadow.watch(SNAPSHOT_LIMIT_S))
        try:
            with shadow.locked():
                return shadow.snapshot()
        except (ShadowError, GitWaitError, OSError) as exc:
            raise WorkspaceError(f"cannot snapshot the workspace: {exc}") from exc


def forget_checkpoints(home: Path, copy: Path, environment: Mapping[str, str]) -> None:
    """Remove the checkpoints Heron kept of a copy under ``home`` (its shadow repository): the
    copy is gone, so nothing could be restored from them, and a batch would otherwise leave
    one full snapshot of its workspace per task behind."""
    shadow = ShadowRepository(home, copy, environment, max_file_size=0, max_files=1)
    shutil.rmtree(shadow.path, ignore_errors=True)
    (shadow.path.parent / f"{shadow.path.name}.lock").unlink(missing_ok=True)


def _git(watch: GitWatch, cwd: Path, args: Sequence[str], env: Mapping[str, str]) -> None:
    command = git_command(args, LOCAL_CLONE)
    if command is None:
        raise WorkspaceError("git is not installed: a task's repository cannot be checked out")
    inherited = {k: v for k, v in env.items() if not k.startswith("GIT_")}
    try:
        process = watch.start(command, cwd=cwd, env={**inherited, **ENVIRONMENT})
        _, err = watch.wait(process)
    except (OSError, GitWaitError) as exc:
        raise WorkspaceError(f"git {args[0]} failed: {exc}") from exc
    if process.returncode != 0:
        said = err.decode("utf-8", "replace").strip().splitlines()
        reason = said[-1] if said else f"exit code {process.returncode}"
        raise WorkspaceError(f"git {args[0]} failed: {reason}")


def _first_error(exc: OSError | shutil.Error) -> str:
    if isinstance(exc, shutil.Error) and exc.args and isinstance(exc.args[0], list):
        errors = cast(list[tuple[str, str, str]], exc.args[0])
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return f"{errors[0][0]}: {errors[0][2]}{more}" if errors else str(exc)
    return str(exc)
