"""Checkpoints on real git and real files: the shadow repository's snapshots (the directly
written first one must be exactly what git itself would store), the restore plan's rules, and
a session's checkpoints taken, listed, planned and applied."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from agent_core.checkpoints.packing import write_first_snapshot
from agent_core.checkpoints.plan import Turn, plan_restore
from agent_core.checkpoints.restore import apply
from agent_core.checkpoints.session import CheckpointError, Checkpoints
from agent_core.checkpoints.shadow import Entry, ShadowError, ShadowRepository, refused_name

MB = 1024 * 1024


def git(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def git_env(home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "u",
        "GIT_AUTHOR_EMAIL": "u@x",
        "GIT_COMMITTER_NAME": "u",
        "GIT_COMMITTER_EMAIL": "u@x",
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A user's repository: committed, changed, untracked and ignored files, odd names."""
    root = tmp_path / "project"
    (root / "src" / "deep" / "er").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / "src" / "deep" / "er" / "x.txt").write_text("x")
    (root / "run.sh").write_text("#!/bin/sh\necho run\n")
    (root / "run.sh").chmod(0o755)
    (root / "empty").write_bytes(b"")
    (root / "name with spaces ü.md").write_text("odd\n")
    (root / "big.bin").write_bytes(os.urandom(100_000))  # compressed, not stored
    (root / "crlf.txt").write_bytes(b"a\r\nb\r\n")
    (root / "link").symlink_to("src/app.py")
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "build").mkdir()
    (root / "build" / "out.o").write_text("ignored")
    (root / "debug.log").write_text("ignored")
    env = git_env(root.parent)
    git("init", "-q", cwd=root, env=env)
    git("add", "src", ".gitignore", cwd=root, env=env)
    git("commit", "-qm", "first", cwd=root, env=env)
    (root / "src" / "app.py").write_text("print('changed')\n")  # not committed
    nested = root / "vendor" / "lib"
    nested.mkdir(parents=True)
    git("init", "-q", cwd=nested, env=env)  # a repository of its own: not kept
    (nested / "lib.c").write_text("int x;\n")
    return root


def shadow_for(home: Path, root: Path, **limits: int) -> ShadowRepository:
    sizes = {"max_file_size": 10 * MB, "max_files": 50_000, **limits}
    return ShadowRepository(home, root, dict(os.environ), **sizes)


def shadow_env(shadow: ShadowRepository, root: Path) -> dict[str, str]:
    return {**os.environ, "GIT_DIR": str(shadow.path), "GIT_WORK_TREE": str(root)}


def user_git_state(root: Path) -> tuple[str, str, bytes, str]:
    env = git_env(root.parent)
    return (
        git("status", "--porcelain", "--untracked-files=all", cwd=root, env=env),
        git("for-each-ref", cwd=root, env=env),
        (root / ".git" / "index").read_bytes(),
        git("stash", "list", cwd=root, env=env),
    )


def git_add_tree(root: Path, scratch: Path) -> str:
    """The tree plain `git add -A` makes of ``root`` in a separate repository."""
    env = {**git_env(scratch), "GIT_DIR": str(scratch / "reference"), "GIT_WORK_TREE": str(root)}
    git("init", "-q", "--bare", str(scratch / "reference"), cwd=scratch)
    git("-c", "core.autocrlf=false", "add", "-A", ".", ":(exclude)vendor/lib", cwd=root, env=env)
    return git("write-tree", cwd=root, env=env).strip()


def test_the_first_snapshot_is_exactly_what_git_would_store(project: Path, tmp_path: Path) -> None:
    before = user_git_state(project)
    shadow = shadow_for(tmp_path / "heron", project)
    snapshot = shadow.snapshot()
    assert snapshot.tree == git_add_tree(project, tmp_path)
    entries = shadow.entries(snapshot.tree)
    assert entries["run.sh"].mode == "100755" and entries["link"].mode == "120000"
    crlf = entries["crlf.txt"].blob
    assert shadow.blobs([crlf])[crlf] == b"a\r\nb\r\n"  # byte for byte
    assert not any(p.startswith(("build/", "vendor/")) or p.endswith(".log") for p in entries)
    assert ".git" not in {p.split("/")[0] for p in entries}
    # The index it wrote holds the files' stat data: git sees nothing to look at again.
    assert git("diff-files", "--name-only", cwd=project, env=shadow_env(shadow, project)) == ""
    assert shadow.snapshot().tree == snapshot.tree
    assert user_git_state(project) == before  # the user's .git untouched


def test_later_snapshots_stage_what_changed(project: Path, tmp_path: Path) -> None:
    shadow = shadow_for(tmp_path / "heron", project)
    first = shadow.snapshot()
    (project / "src" / "app.py").write_text("print('again')\n")
    (project / "new.txt").write_text("new\n")
    (project / "empty").unlink()
    (project / "run.sh").chmod(0o644)
    second = shadow.snapshot()
    assert set(shadow.changed_paths(first.tree, second.tree)) == {
        "src/app.py",
        "new.txt",
        "empty",
        "run.sh",
    }
    assert second.tree == git_add_tree(project, tmp_path)


def test_later_snapshots_follow_files_and_folders_trading_places(
    project: Path, tmp_path: Path
) -> None:
    shadow = shadow_for(tmp_path / "heron", project)
    shadow.snapshot()
    (project / "empty").unlink()
    (project / "empty").mkdir()  # a file became a folder
    (project / "empty" / "inside.txt").write_text("in\n")
    deep = project / "src" / "deep"
    (deep / "er" / "x.txt").unlink()
    (deep / "er").rmdir()
    deep.rmdir()
    deep.write_text("a file where a folder was\n")
    (project / "link").unlink()
    (project / "link").symlink_to("run.sh")  # a link that points elsewhere
    (project / "new folder" / "a").mkdir(parents=True)
    (project / "new folder" / "a" / "b.txt").write_text("b\n")
    later = shadow.snapshot()
    assert later.tree == git_add_tree(project, tmp_path)
    assert shadow.blobs([shadow.entries(later.tree)["src/deep"].blob]).popitem()[1] == (
        b"a file where a folder was\n"
    )


def test_a_folder_replaced_by_a_symlink_leaves_later_snapshots_working(
    project: Path, tmp_path: Path
) -> None:
    shadow = shadow_for(tmp_path / "heron", project)
    shadow.snapshot()
    deep = project / "src" / "deep"
    (deep / "er" / "x.txt").unlink()
    (deep / "er").rmdir()
    deep.rmdir()
    deep.symlink_to("../run.sh")  # src/deep/er/x.txt now runs through a symlink
    assert shadow.snapshot().tree == git_add_tree(project, tmp_path)
    (project / "src" / "app.py").write_text("and again\n")
    (tmp_path / "again").mkdir()
    assert shadow.snapshot().tree == git_add_tree(project, tmp_path / "again")


def test_names_git_will_not_store_are_left_out_and_said(project: Path, tmp_path: Path) -> None:
    (project / "git~1").write_text("an NTFS short name for .git\n")
    (project / "src" / ".GIT").mkdir()
    (project / "src" / ".GIT" / "config").write_text("[core]\n")
    (project / ".git. ").mkdir()
    (project / ".git. " / "hooks").write_text("#!/bin/sh\n")
    shadow = shadow_for(tmp_path / "heron", project)
    first = shadow.snapshot()
    assert set(first.refused) == {"git~1", "src/.GIT/config", ".git. /hooks"}
    assert not {"git~1", "src/.GIT/config", ".git. /hooks"} & set(shadow.entries(first.tree))
    (project / "src" / "deep" / ".Git").write_text("new, and refused\n")
    (project / "src" / "app.py").write_text("kept\n")
    later = shadow.snapshot()
    assert "src/deep/.Git" in later.refused
    entries = shadow.entries(later.tree)
    assert shadow.blobs([entries["src/app.py"].blob]).popitem()[1] == b"kept\n"
    assert not any(refused_name(p.encode()) for p in entries)


def test_a_name_git_will_not_store_leaves_an_older_index_once_it_changes(
    project: Path, tmp_path: Path
) -> None:
    (project / "git~1").write_text("one\n")
    (project / ".GIT").mkdir()
    (project / ".GIT" / "x").write_text("x\n")
    shadow = shadow_for(tmp_path / "heron", project)
    shadow.snapshot()
    # An index made before such names were left out holds it.
    index = shadow.path / "index"
    index.unlink()
    listed = git("ls-files", "-z", "--others", cwd=project, env=git_env(tmp_path)).split("\0")
    paths = sorted(os.fsencode(p) for p in listed if p and not p.startswith("vendor/"))

    def index_pack(pack: Path) -> Callable[[], object]:
        return lambda: subprocess.run(["git", "index-pack", str(pack)], check=True)

    write_first_snapshot(shadow.path, project, paths, MB, index_pack)
    indexed = git("ls-files", cwd=project, env=shadow_env(shadow, project)).splitlines()
    assert {"git~1", ".GIT/x"} <= set(indexed)
    (project / "git~1").write_text("two\n")
    (project / ".GIT" / "x").unlink()
    later = shadow.snapshot()
    assert later.refused == ("git~1",)  # still there, and not kept; .GIT/x is gone
    assert not {"git~1", ".GIT/x"} & set(shadow.entries(later.tree))
    indexed = git("ls-files", cwd=project, env=shadow_env(shadow, project)).splitlines()
    assert not {"git~1", ".GIT/x"} & set(indexed)


def test_a_file_that_grows_too_big_or_becomes_a_repository_leaves_the_snapshot(
    project: Path, tmp_path: Path
) -> None:
    shadow = shadow_for(tmp_path / "heron", project, max_file_size=50_000)
    first = shadow.snapshot()
    assert "src/app.py" in shadow.entries(first.tree)
    (project / "src" / "app.py").write_bytes(b"#" * 60_000)
    (project / "other").mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project / "other", check=True)
    (project / "other" / "code.c").write_text("int y;\n")
    later = shadow.snapshot()
    entries = shadow.entries(later.tree)
    assert set(later.skipped) == {"src/app.py", "big.bin"}
    assert "src/app.py" not in entries and not any(p.startswith("other") for p in entries)
    assert "src/deep/er/x.txt" in entries  # the rest is kept


def test_later_snapshots_stop_at_the_file_count_and_take_more_when_room_is_made(
    project: Path, tmp_path: Path
) -> None:
    (project / "many").mkdir()
    for n in range(40):  # a change leaves most of the index in its shared part...
        (project / "many" / f"{n}.txt").write_text(str(n))
        os.utime(project / "many" / f"{n}.txt", (1e9, 1e9))  # ... if git trusts its stat data
    home = tmp_path / "heron"
    unlimited = shadow_for(home, project)
    count = len(unlimited.entries(unlimited.snapshot().tree))
    shadow = shadow_for(home, project, max_files=count + 2)
    for version in ("two", "three"):  # the index is split, and a file is in both of its parts
        (project / "src" / "app.py").write_text(version)
        shadow.snapshot()
    for name in "abc":
        (project / f"new-{name}.txt").write_text(name)
    full = shadow.snapshot()
    assert full.partial
    assert {p for p in shadow.entries(full.tree) if p.startswith("new-")} == {
        "new-a.txt",
        "new-b.txt",
    }
    (project / "new-a.txt").unlink()  # room for one more
    later = shadow.snapshot()
    assert not later.partial
    assert len(shadow.entries(later.tree)) == count + 2
    assert "new-c.txt" in shadow.entries(later.tree)


def test_the_first_snapshot_keeps_no_index_when_the_pack_cannot_be_indexed(
    project: Path, tmp_path: Path
) -> None:
    git_dir = tmp_path / "shadow"
    subprocess.run(["git", "init", "-q", "--bare", str(git_dir)], check=True)

    def failing_index_pack(pack: Path) -> Callable[[], None]:
        def indexed() -> None:
            raise ShadowError("git index-pack failed: no space left on device")

        return indexed

    with pytest.raises(ShadowError, match="index-pack"):
        write_first_snapshot(git_dir, project, [b"run.sh"], MB, failing_index_pack)
    # Without its pack, an index would claim files the repository does not hold.
    assert not (git_dir / "index").exists()
    assert [p.name for p in git_dir.glob("index*")] == []
    assert not list((git_dir / "objects" / "pack").glob("tmp-*"))


def test_limits_leave_out_big_files_and_stop_at_the_file_count(
    project: Path, tmp_path: Path
) -> None:
    shadow = shadow_for(tmp_path / "heron", project, max_file_size=50_000, max_files=5)
    snapshot = shadow.snapshot()
    assert snapshot.partial and "big.bin" in snapshot.skipped
    assert len(shadow.entries(snapshot.tree)) == 5 - 1  # the big one among the first five
    (project / "huge.bin").write_bytes(b"\0" * 60_000)
    later = shadow.snapshot()
    assert "huge.bin" in later.skipped and "huge.bin" not in shadow.entries(later.tree)


def test_a_damaged_shadow_says_so(project: Path, tmp_path: Path) -> None:
    shadow = shadow_for(tmp_path / "heron", project)
    shadow.snapshot()
    for index in (shadow.path / "objects" / "pack").glob("*.idx"):
        index.write_bytes(b"garbage")
    (project / "src" / "app.py").write_text("changed again\n")
    with pytest.raises(ShadowError, match="git"):
        shadow.entries(shadow.snapshot().tree)


# The plan's rules, on trees given as data.


def entry(blob: str, mode: str = "100644") -> Entry:
    return Entry(mode, blob)


def test_a_plan_undoes_the_agents_changes_and_keeps_what_it_did_not_make() -> None:
    before = {"a": entry("a1"), "b": entry("b1"), "gone": entry("g1"), "user": entry("u1")}
    after = {"a": entry("a2"), "b": entry("b1"), "made": entry("m1"), "mine": entry("x1")}
    after["user"] = entry("u1")
    turn = Turn(1, before, after)
    current = {**after, "user": entry("u2"), "mine": entry("x2"), "later": entry("l1")}
    plan = plan_restore([turn], current)
    actions = {c.path: c.action for c in plan.changes}
    assert actions == {"a": "restore", "gone": "recreate", "made": "delete"}
    assert {k.path for k in plan.kept} == {"mine"}  # created by the agent, changed since
    # "user" (changed between turns by the user) and "later" (never the agent's) are not touched


def test_a_plan_over_several_turns_goes_back_to_the_first() -> None:
    t1 = Turn(1, {"a": entry("1")}, {"a": entry("2")})
    t2 = Turn(
        2, {"a": entry("2"), "u": entry("u")}, {"a": entry("3"), "u": entry("u"), "n": entry("n")}
    )
    plan = plan_restore([t1, t2], {"a": entry("3"), "u": entry("u"), "n": entry("n")})
    assert [(c.path, c.action, c.target) for c in plan.changes] == [
        ("a", "restore", entry("1")),
        ("n", "delete", None),
    ]
    user_made = Turn(2, {"a": entry("2"), "f": entry("f1")}, {"a": entry("2"), "f": entry("f2")})
    plan = plan_restore([t1, user_made], {"a": entry("2"), "f": entry("f2")})
    assert [k.path for k in plan.kept] == ["f"]  # the user created it after checkpoint 1


# A session's checkpoints.


class DiskWorkspace:
    def __init__(self, root: Path) -> None:
        self.roots = (root,)
        self.written: list[Path] = []

    async def read_text(self, path: Path) -> str:
        return await anyio.Path(path).read_text()

    async def write_text(self, path: Path, content: str) -> None:
        self.written.append(path)
        await anyio.Path(path).write_bytes(content.encode())

    async def exists(self, path: Path) -> bool:
        return await anyio.Path(path).is_file()


def tree_of(root: Path) -> dict[str, tuple[int, bytes]]:
    found: dict[str, tuple[int, bytes]] = {}
    for folder, names, files in os.walk(root):
        if ".git" in names:
            names.remove(".git")
        for name in [*files, *(n for n in names if (Path(folder) / n).is_symlink())]:
            path = Path(folder) / name
            info = path.lstat()
            data = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
            found[str(path.relative_to(root))] = (info.st_mode, data)
    return found


def test_a_session_checkpoints_a_turn_once_and_restores_it(project: Path, tmp_path: Path) -> None:
    checkpoints = Checkpoints(shadow_for(tmp_path / "heron", project), "s1")
    workspace = DiskWorkspace(project)
    start = tree_of(project)

    async def scenario() -> None:
        assert await checkpoints.before_change() is None  # no turn running
        checkpoints.begin_turn("make changes")
        taken = await checkpoints.before_change()
        assert taken is not None and taken.number == 1 and taken.notice is None
        assert await checkpoints.before_change() == type(taken)(1)  # once a turn
        (project / "src" / "app.py").write_text("edited\n")
        (project / "made.txt").write_text("made\n")
        (project / "run.sh").unlink()
        (project / "link").unlink()
        assert await checkpoints.end_turn() is None
        [info] = await checkpoints.listing()
        assert (info.number, info.prompt, info.files_changed) == (1, "make changes", 4)
        checkpoints.begin_turn("only reads")
        assert await checkpoints.end_turn() is None  # no change, no checkpoint
        assert len(await checkpoints.listing()) == 1
        plan = await checkpoints.plan(None)
        applied = await apply(plan, await checkpoints.contents(plan), workspace)
        assert not applied.failed
        await checkpoints.forget_from(1)
        assert await checkpoints.listing() == []

    anyio.run(scenario)
    assert tree_of(project) == start
    assert project / "src" / "app.py" in workspace.written  # text goes through the workspace


def test_a_partial_checkpoint_says_what_it_does_not_cover(project: Path, tmp_path: Path) -> None:
    (project / "git~1").write_text("refused\n")
    shadow = shadow_for(tmp_path / "heron", project, max_file_size=50_000)
    checkpoints = Checkpoints(shadow, "s1")

    async def scenario() -> str | None:
        checkpoints.begin_turn("change")
        taken = await checkpoints.before_change()
        assert taken is not None and taken.number == 1
        return taken.notice

    notice = anyio.run(scenario)
    assert notice == (
        "This turn's checkpoint is partial: files over 50,000 bytes are not covered: big.bin; "
        "names git will not store are not covered: git~1."
    )


def test_bad_requests_and_a_missing_shadow_change_nothing(project: Path, tmp_path: Path) -> None:
    checkpoints = Checkpoints(shadow_for(tmp_path / "heron", project), "s1")

    async def scenario() -> None:
        with pytest.raises(CheckpointError, match="no checkpoints"):
            await checkpoints.plan(None)
        checkpoints.begin_turn("t")
        await checkpoints.before_change()
        await checkpoints.end_turn()
        with pytest.raises(CheckpointError, match=r"no checkpoint 99\. This session has: 1"):
            await checkpoints.plan(99)
        await anyio.run_process(["rm", "-rf", str(checkpoints.shadow.path)])
        with pytest.raises(CheckpointError, match="was deleted"):
            await checkpoints.plan(1)

    anyio.run(scenario)


def test_a_checkpoint_that_cannot_be_taken_is_a_notice_not_a_failure(
    project: Path, tmp_path: Path
) -> None:
    home = tmp_path / "heron"
    home.mkdir()
    (home / "checkpoints").write_text("a file where a folder should be")
    checkpoints = Checkpoints(shadow_for(home, project), "s1")

    async def scenario() -> None:
        checkpoints.begin_turn("t")
        taken = await checkpoints.before_change()
        assert taken is not None and taken.number is None
        assert taken.notice is not None and taken.notice.startswith("No checkpoint for this turn")
        assert await checkpoints.before_change() is None  # said once
        assert await checkpoints.end_turn() is None

    anyio.run(scenario)


def test_forks_copy_and_deletes_drop_a_sessions_checkpoints(project: Path, tmp_path: Path) -> None:
    shadow = shadow_for(tmp_path / "heron", project)
    parent, child = Checkpoints(shadow, "parent"), Checkpoints(shadow, "child")

    async def scenario() -> None:
        parent.begin_turn("t")
        await parent.before_change()
        await parent.end_turn()
        await child.copy_from("parent")
        assert [c.number for c in await child.listing()] == [1]
        await parent.delete_all()
        assert await parent.listing() == []
        assert [c.number for c in await child.listing()] == [1]

    anyio.run(scenario)


def test_old_checkpoints_and_other_sessions_over_the_size_limit_are_pruned(
    project: Path, tmp_path: Path
) -> None:
    shadow = shadow_for(tmp_path / "heron", project)

    async def turn(checkpoints: Checkpoints, name: str) -> None:
        checkpoints.begin_turn(name)
        await checkpoints.before_change()
        (project / f"{name}.txt").write_text(name)
        await checkpoints.end_turn()

    async def scenario() -> None:
        old = Checkpoints(shadow, "old")
        await turn(old, "old")
        await anyio.sleep(1.1)  # commit times are whole seconds
        await turn(Checkpoints(shadow, "new", keep_days=0.5 / 86400), "new")
        assert await old.listing() == []  # past its age
        other = Checkpoints(shadow, "other")
        await turn(other, "other")
        tiny = Checkpoints(shadow, "tiny", max_total_mb=0.001)
        await turn(tiny, "tiny")
        assert await other.listing() == []  # the repository is over its size: others go first
        assert [c.number for c in await tiny.listing()] == [1]  # its own checkpoint stays

    anyio.run(scenario)


def test_a_turns_checkpoint_covers_the_files_it_keeps_as_they_are(
    project: Path, tmp_path: Path
) -> None:
    (project / "new.txt").write_text("new since the last snapshot\n")
    shadow = shadow_for(tmp_path / "heron", project, max_file_size=50_000)
    checkpoints = Checkpoints(shadow, "s1")

    async def scenario() -> dict[str, str | None]:
        checkpoints.begin_turn("empty files")
        assert (await checkpoints.covers(["src/app.py"])).why_not is not None  # none taken yet
        assert await checkpoints.before_change() is not None
        (project / "made.txt").write_text("written after the checkpoint\n")
        (project / "run.sh").write_text("changed after the checkpoint\n")
        asked: dict[str, list[str | None]] = {
            "tracked": ["src/app.py", "./src/deep/er/x.txt", str(project / "crlf.txt")],
            "new": ["new.txt"],
            "through a link": ["link"],
            "gone": ["no-such-file", "src/none.py"],
            "ignored": ["src/app.py", "build/out.o"],
            "ignored by pattern": ["debug.log"],
            "too large": ["big.bin"],
            "written after": ["made.txt"],
            "changed after": ["run.sh"],
            "unnamed": ["src/app.py", None],
            "outside": ["../elsewhere.txt"],
            "folder": ["src"],
        }
        return {why: (await checkpoints.covers(paths)).why_not for why, paths in asked.items()}

    found = anyio.run(scenario)
    assert {why for why, said in found.items() if said is None} == {
        "tracked",
        "new",
        "through a link",
        "gone",
    }
    assert found["ignored"] == (
        "build/out.o is ignored (.gitignore), and checkpoints leave ignored files out"
    )
    assert (
        found["ignored by pattern"] is not None
        and "debug.log is ignored" in found["ignored by pattern"]
    )
    assert found["too large"] == "big.bin is over the checkpoints' size limit (50,000 bytes)"
    assert found["written after"] == "made.txt was written after this turn's checkpoint was taken"
    assert found["changed after"] == "run.sh was changed after this turn's checkpoint was taken"
    assert found["unnamed"] == "the files it empties are only known when it runs"
    assert found["outside"] == "../elsewhere.txt is outside the workspace"
    assert found["folder"] is not None and "src is a folder" in found["folder"]


def test_a_checkpoint_stopped_at_the_file_limit_does_not_cover_the_rest(
    project: Path, tmp_path: Path
) -> None:
    checkpoints = Checkpoints(shadow_for(tmp_path / "heron", project, max_files=3), "s1")

    async def scenario() -> tuple[str | None, str | None]:
        checkpoints.begin_turn("empty files")
        await checkpoints.before_change()
        return (
            (await checkpoints.covers([".gitignore"])).why_not,
            (await checkpoints.covers(["run.sh"])).why_not,
        )

    kept, past = anyio.run(scenario)
    assert kept is None
    assert past == (
        "run.sh is past the checkpoints' file limit (3 files): this turn's checkpoint is partial"
    )
