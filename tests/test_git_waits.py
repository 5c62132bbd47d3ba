"""No wait on git is open-ended: the watch's deadline and stop kill a whole process group, a
stall is explained by the file to blame, and a checkpoint in the way of a FIFO named
``.gitignore`` or ``.gitattributes`` is skipped with that file named, then skipped again
before git even starts; a search in the way of one stops naming it. Real processes, real
FIFOs, real git and ripgrep."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import anyio
import pytest

from agent_core.checkpoints.session import Checkpoints
from agent_core.checkpoints.shadow import ShadowError, ShadowRepository
from agent_core.errors import ToolError
from agent_core.safety.blockers import READ_BY_RIPGREP, STALL_S, find_blockers, known_blocker
from agent_core.safety.git import GitStopped, GitWaitError, GitWatch, HardenedGit
from agent_core.tools.ripgrep import ripgrep
from tests.support.processes import wait_dead

# A process that starts a grandchild (in its group), says both pids, then waits for ever.
FAMILY = "sleep 3131 & echo $$ $!; wait"


def started(watch: GitWatch, script: str = FAMILY) -> tuple[subprocess.Popen[bytes], list[int]]:
    process = watch.start(["sh", "-c", script], cwd=Path.cwd(), env=dict(os.environ))
    assert process.stdout is not None
    pids = [int(p) for p in process.stdout.readline().split()]
    return process, pids


def test_a_wait_past_the_deadline_kills_the_whole_group_and_says_what_took_long() -> None:
    watch = GitWatch(0.3)
    process, pids = started(watch)
    began = time.monotonic()
    with pytest.raises(GitWaitError, match=r"took over 0\.3 s"):
        watch.wait(process)
    assert time.monotonic() - began < 1.0
    assert wait_dead(pids, timeout=2) == []  # the grandchild too, not just the process
    with pytest.raises(GitWaitError):  # nothing more starts under an ended watch
        watch.start(["true"], cwd=Path.cwd(), env={})


def test_a_stop_from_another_thread_ends_the_wait_at_once() -> None:
    watch = GitWatch(60)
    process, pids = started(watch)
    threading.Timer(0.2, watch.stop).start()
    began = time.monotonic()
    with pytest.raises(GitStopped):
        watch.wait(process)
    assert time.monotonic() - began < 1.0
    assert wait_dead(pids, timeout=2) == []


def test_a_stall_is_explained_once_and_an_explanation_ends_the_wait() -> None:
    asked: list[float] = []

    def explain(limit_s: float) -> str | None:
        asked.append(limit_s)
        return "x/.gitignore is a FIFO"

    watch = GitWatch(30, stall_s=0.2, explain=explain)
    process, pids = started(watch)
    with pytest.raises(GitWaitError, match=r"x/\.gitignore is a FIFO"):
        watch.wait(process)
    assert len(asked) == 1 and 25 < asked[0] <= 30  # the time the deadline leaves
    assert wait_dead(pids, timeout=2) == []


def test_a_stall_not_explained_waits_on_and_a_quick_call_is_untouched() -> None:
    watch = GitWatch(30, stall_s=0.1, explain=lambda _: None)
    process = watch.start(["sh", "-c", "sleep 0.3; echo done"], cwd=Path.cwd(), env={})
    assert watch.wait(process) == (b"done\n", b"")
    quick = watch.start([sys.executable, "-c", "print(1)"], cwd=Path.cwd(), env=dict(os.environ))
    assert watch.wait(quick)[0].strip() == b"1"


def test_a_wait_carries_input_and_output_larger_than_a_pipe_both_ways() -> None:
    watch = GitWatch(30)
    given = os.urandom(1 << 20)  # 1 MiB in, through a 64 KiB pipe, while output comes back
    script = "cat; echo said >&2"
    process = watch.start(["sh", "-c", script], cwd=Path.cwd(), env={}, piped=True)
    assert watch.wait(process, given) == (given, b"said\n")
    early = watch.start(["sh", "-c", "exit 3"], cwd=Path.cwd(), env={}, piped=True)
    assert watch.wait(early, given) == (b"", b"")  # it ended without reading: no error
    assert early.returncode == 3


def test_the_hardened_runner_gives_up_on_a_git_that_hangs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hanging = tmp_path / "bin"
    hanging.mkdir()
    (hanging / "git").write_text('#!/bin/sh\necho $$ > "$PIDS"; exec sleep 3132\n')
    (hanging / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{hanging}{os.pathsep}{os.environ['PATH']}")
    pids = tmp_path / "pids"
    git = HardenedGit({"PIDS": str(pids), "PATH": os.environ["PATH"]}, timeout_s=0.3)
    began = time.monotonic()
    assert git.summary(tmp_path) == "not a git repository"
    assert time.monotonic() - began < 2.0
    assert wait_dead([int(pids.read_text())], timeout=2) == []


def test_the_session_summary_of_a_repository_whose_status_hangs_says_so(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main", str(tmp_path)], check=True)
    who = ["-c", "user.name=u", "-c", "user.email=u@x"]
    subprocess.run(
        ["git", *who, "commit", "-q", "--allow-empty", "-m", "c"], cwd=tmp_path, check=True
    )
    (tmp_path / "sub").mkdir()
    os.mkfifo(tmp_path / "sub" / ".gitignore")
    (tmp_path / "sub" / "x.txt").write_text("x\n")
    began = time.monotonic()
    assert HardenedGit(dict(os.environ), timeout_s=0.5).summary(tmp_path) == (
        "branch main, changes unknown"
    )
    assert time.monotonic() - began < 3.0


# The files that make git wait.


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / "a.txt").write_text("a\n")
    (root / "sub" / "b.txt").write_text("b\n")
    (root / "sub" / "deeper" / "c.txt").write_text("c\n")
    return root


def test_the_walk_finds_fifos_named_as_git_reads_them_and_nothing_else(project: Path) -> None:
    os.mkfifo(project / "sub" / "deeper" / ".gitattributes")
    os.mkfifo(project / "sub" / ".gitignore")
    os.mkfifo(project / "sub" / "other-fifo")  # git never opens it
    (project / "sub" / "deeper" / ".gitignore").write_text("*.o\n")
    (project / ".git" / "x").mkdir(parents=True)
    os.mkfifo(project / ".git" / "x" / ".gitignore")  # git skips .git folders
    (project / "link").symlink_to(project / "sub")  # not followed
    os.mkfifo(project / "sub" / ".ignore")  # ripgrep's, not git's
    assert find_blockers(project) == [
        ("sub/.gitignore", "a FIFO (named pipe)"),
        ("sub/deeper/.gitattributes", "a FIFO (named pipe)"),
    ]
    assert [path for path, _ in find_blockers(project, READ_BY_RIPGREP)] == [
        "sub/.gitignore",
        "sub/.ignore",
    ]
    assert known_blocker(project, []) is None
    assert known_blocker(project, ["sub/other-fifo"]) == ("sub/other-fifo", "a FIFO (named pipe)")
    os.mkfifo(project / ".gitignore")
    assert known_blocker(project, []) == (".gitignore", "a FIFO (named pipe)")


def shadow_for(home: Path, workspace: Path) -> ShadowRepository:
    return ShadowRepository(
        home, workspace, dict(os.environ), max_file_size=1 << 20, max_files=10_000
    )


def test_a_fifo_gitignore_fails_the_first_snapshot_naming_it_then_before_git_starts(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    os.mkfifo(project / "sub" / ".gitignore")
    shadow = shadow_for(tmp_path / "heron", project)
    began = time.monotonic()
    with pytest.raises(ShadowError, match=r"sub/\.gitignore is a FIFO \(named pipe\)"):
        shadow.snapshot()
    assert time.monotonic() - began < STALL_S  # found by the walk beside git's first one
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))  # git cannot start now
    for session in (shadow, shadow_for(tmp_path / "heron", project)):  # this one, another
        began = time.monotonic()
        with pytest.raises(ShadowError, match=r"sub/\.gitignore is a FIFO"):
            session.snapshot()
        assert time.monotonic() - began < STALL_S / 2  # told at once, not after a stall
    monkeypatch.undo()
    (project / "sub" / ".gitignore").unlink()
    (project / "sub" / ".gitignore").write_text("*.o\n")
    assert "sub/b.txt" in shadow.entries(shadow.snapshot().tree)  # back to work


def test_a_fifo_gitattributes_made_later_fails_the_next_snapshot_naming_it(
    project: Path, tmp_path: Path
) -> None:
    shadow = shadow_for(tmp_path / "heron", project)
    with shadow.locked():
        shadow.snapshot()
    os.mkfifo(project / "sub" / ".gitattributes")
    (project / "sub" / "b.txt").write_text("changed: git reads the folder's attributes\n")
    began = time.monotonic()
    with shadow.locked(), pytest.raises(ShadowError, match=r"sub/\.gitattributes is a FIFO"):
        shadow.snapshot()
    assert STALL_S <= time.monotonic() - began < STALL_S + 2  # the stall, then the walk
    began = time.monotonic()
    with pytest.raises(ShadowError, match=r"sub/\.gitattributes is a FIFO"):
        shadow_for(tmp_path / "heron", project).snapshot()  # another session knows it
    assert time.monotonic() - began < STALL_S / 2  # told at once, not after a stall
    (project / "sub" / ".gitattributes").unlink()
    with shadow.locked():  # the index.lock the killed git left is gone
        assert "sub/b.txt" in shadow.entries(shadow.snapshot().tree)


def test_a_piece_of_work_shares_one_deadline(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sleepy = tmp_path / "bin"
    sleepy.mkdir()
    real = shutil.which("git")
    (sleepy / "git").write_text(f'#!/bin/sh\nsleep 0.2\nexec "{real}" "$@"\n')
    (sleepy / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{sleepy}{os.pathsep}{os.environ['PATH']}")
    shadow = shadow_for(tmp_path / "heron", project)
    watched = shadow.watched(shadow.watch(0.5))
    with pytest.raises(ShadowError, match=r"git \S+ took over 0\.5 s"):
        for _ in range(5):  # each call is quick, all of them are not
            watched.snapshot()


# A session's checkpoints: a cancel ends the wait at once.


def hanging_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``git`` first on PATH that hangs on the shadow's calls; where it writes its pids."""
    folder = tmp_path / "bin"
    folder.mkdir()
    pids = tmp_path / "pids"
    real = shutil.which("git")
    script = f"""#!/bin/sh
if [ -n "$GIT_DIR" ]; then sleep 3133 & echo $$ $! >> "{pids}"; wait; fi
exec "{real}" "$@"
"""
    (folder / "git").write_text(script)
    (folder / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return pids


def test_a_cancel_ends_a_checkpoint_that_waits_on_git_and_kills_it(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pids = hanging_git(tmp_path, monkeypatch)
    checkpoints = Checkpoints(shadow_for(tmp_path / "heron", project), "s1")

    async def main() -> float:
        checkpoints.begin_turn("edit")
        with anyio.move_on_after(0.5):
            await checkpoints.before_change()
        began = time.monotonic()
        checkpoints.begin_turn("again")  # the session goes on: its next turn tries again
        with anyio.move_on_after(0.3) as scope:
            await checkpoints.before_change()
        assert scope.cancelled_caught
        return time.monotonic() - began

    assert anyio.run(main) < 0.5
    hung = [int(p) for p in pids.read_text().split()]
    assert len(hung) == 4  # two calls, each a shell and its sleep
    assert wait_dead(hung, timeout=2) == []


def test_the_record_of_a_cancelled_turn_is_hurried(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkpoints = Checkpoints(shadow_for(tmp_path / "heron", project), "s1")

    async def main() -> tuple[str | None, float]:
        checkpoints.begin_turn("edit")
        taken = await checkpoints.before_change()
        assert taken is not None and taken.number == 1
        hanging_git(tmp_path, monkeypatch)
        began = time.monotonic()
        said = await checkpoints.end_turn(hurried=True)
        return said, time.monotonic() - began

    said, took = anyio.run(main)
    assert said is not None and "The end of checkpoint 1 was not recorded" in said
    assert "took over 0.5 s" in said and took < 1.0


# ripgrep reads the same files: a search in their way stops with the file named.


def test_a_search_in_the_way_of_a_fifo_ignore_file_stops_naming_it(project: Path) -> None:
    async def search() -> str:
        return await ripgrep(["--files"], project)

    assert sorted(anyio.run(search).split()) == ["a.txt", "sub/b.txt", "sub/deeper/c.txt"]
    os.mkfifo(project / "sub" / "deeper" / ".ignore")
    began = time.monotonic()
    with pytest.raises(
        ToolError,
        match=r"sub/deeper/\.ignore is a FIFO \(named pipe\), not a file: ripgrep reads it",
    ):
        anyio.run(search)
    assert time.monotonic() - began < 5.0  # the stall point, then a walk: not the time limit
