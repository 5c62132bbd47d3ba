"""The live workspace's watcher (``agent_core.watching``) over real folders: each source of
changes (inotify, read on the event loop, and the portable ``watchfiles`` one) tells a file
changed, a skill folder added below a tree and then changed, a tree created after the watch was
laid, nothing through a workspace tree that links out of the workspace; and the inotify
source's own rules: links below a tree not followed, a folder moved away
forgotten, lost events told as every root, a tree too large refused, and its events' layout."""

from __future__ import annotations

import os
import struct
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

from agent_core.watching import inotify, portable, watcher
from agent_core.watching.sources import Source
from agent_core.watching.targets import Kind, Targets, watch_points
from agent_core.watching.watcher import FolderWatch

pytestmark = pytest.mark.anyio

TOLD_S = 5.0  # generous: a batch is told within half a second
SOURCES = {
    "inotify": Source(inotify.changes, inotify.check),
    "portable": Source(portable.changes, portable.check),
}


def workspace(root: Path) -> Targets:
    return Targets(
        {root / "AGENTS.md": "instructions"},
        {root / ".heron" / "commands": "commands", root / "skills": "commands"},
        root,
    )


@asynccontextmanager
async def watching(
    targets: Targets, failures: list[str] | None = None
) -> AsyncIterator[anyio.abc.ObjectReceiveStream[frozenset[Kind]]]:
    """A started watcher; what it tells arrives on the stream."""
    send, receive = anyio.create_memory_object_stream[frozenset[Kind]](100)
    failed = failures if failures is not None else []
    watch = FolderWatch("test", lambda: targets, failed.append)
    watch.subscribe("s", send.send)
    async with send, receive, anyio.create_task_group() as group:
        watch.start(group)
        with anyio.fail_after(TOLD_S):
            await watch.started.wait()
        yield receive
        watch.stop()  # the watch ends at once, whatever the source: the group waits for it
    assert failed == [] or failures is not None


async def told(receive: anyio.abc.ObjectReceiveStream[frozenset[Kind]]) -> frozenset[Kind]:
    with anyio.fail_after(TOLD_S):
        return await receive.receive()


async def nothing_told(receive: anyio.abc.ObjectReceiveStream[frozenset[Kind]]) -> bool:
    with anyio.move_on_after(1.0):  # two full batches' time
        await receive.receive()
        return False
    return True


@pytest.fixture(params=sorted(SOURCES))
def source(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(watcher, "source", lambda: SOURCES[request.param])
    return request.param


async def test_a_followed_file_written_is_told_and_an_unrelated_one_is_not(
    tmp_path: Path, source: str
) -> None:
    async with watching(workspace(tmp_path)) as receive:
        (tmp_path / "notes.txt").write_text("not followed")
        assert await nothing_told(receive)
        (tmp_path / "AGENTS.md").write_text("Be brief.")
        assert await told(receive) == {"instructions"}


async def test_a_skill_folder_added_below_a_tree_is_followed_from_then_on(
    tmp_path: Path, source: str
) -> None:
    (tmp_path / "skills").mkdir()
    async with watching(workspace(tmp_path)) as receive:
        skill = tmp_path / "skills" / "review" / "references"
        skill.mkdir(parents=True)
        assert await told(receive) == {"commands"}
        await anyio.sleep(0.1)  # the new folders' own watches are laid
        (skill / "style.md").write_text("two spaces")
        assert await told(receive) == {"commands"}


async def test_a_tree_created_after_the_watch_is_followed(tmp_path: Path, source: str) -> None:
    async with watching(workspace(tmp_path)) as receive:
        (tmp_path / ".heron" / "commands").mkdir(parents=True)
        assert await told(receive) == {"commands"}
        while not await nothing_told(receive):  # the watch laid again tells it once more
            pass
        (tmp_path / ".heron" / "commands" / "ship.md").write_text("Ship it.")
        assert await told(receive) == {"commands"}


async def test_a_link_below_a_tree_is_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "inside").mkdir(parents=True)
    tree = tmp_path / "skills"
    tree.mkdir()
    (tree / "linked").symlink_to(elsewhere, target_is_directory=True)
    with inotify.Inotify() as notify:
        notify.follow(frozenset({tree}), deep=True)
        (elsewhere / "inside" / "x.md").write_text("outside the tree")
        (elsewhere / "y.md").write_text("outside the tree")
        assert notify.read() == set()
        (tree / "z.md").write_text("inside")
        assert notify.read() == {tree / "z.md"}


async def test_a_workspace_tree_that_leads_out_of_the_workspace_is_not_followed(
    tmp_path: Path, source: str
) -> None:
    outside, repo = tmp_path / "outside", tmp_path / "repo"
    (outside / "deep").mkdir(parents=True)
    (repo / ".heron").mkdir(parents=True)
    (repo / ".heron" / "commands").symlink_to(outside, target_is_directory=True)
    points = watch_points(workspace(repo))
    assert points.deep == frozenset() and repo / ".heron" in points.flat
    async with watching(workspace(repo)) as receive:
        (outside / "deep" / "x.md").write_text("outside the workspace")
        (outside / "y.md").write_text("outside the workspace")
        assert await nothing_told(receive)
        (repo / ".heron" / "commands").unlink()  # the link itself is followed
        assert await told(receive) == {"commands"}


async def test_a_folder_moved_out_of_a_tree_is_forgotten(tmp_path: Path) -> None:
    tree, away = tmp_path / "skills", tmp_path / "away"
    (tree / "old" / "deeper").mkdir(parents=True)
    with inotify.Inotify() as notify:
        notify.follow(frozenset({tree}), deep=True)
        (tree / "old").rename(away)
        assert tree / "old" in notify.read()
        (away / "deeper" / "x.md").write_text("no longer below the tree")
        assert notify.read() == set()


async def test_lost_events_are_told_as_every_root(tmp_path: Path) -> None:
    with inotify.Inotify() as notify:
        notify.follow(frozenset({tmp_path}), deep=False)
        overflow = struct.pack("iIII", -1, inotify.IN_Q_OVERFLOW, 0, 0)
        assert {p for e in inotify.parse(overflow) for p in notify._apply(e)} == {tmp_path}  # pyright: ignore[reportPrivateUsage]


async def test_a_tree_too_large_is_refused_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inotify, "MOST_FOLDERS", 5)
    for n in range(8):
        (tmp_path / "skills" / f"s{n}").mkdir(parents=True)
    failures: list[str] = []
    async with watching(workspace(tmp_path), failures):
        pass
    assert failures and "TooManyFolders: more than 5 folders to watch" in failures[0]
    problem = await watcher.probe(watch_points(workspace(tmp_path)))
    assert problem is not None and "more than 5 folders" in problem


async def test_the_probe_lays_and_takes_down_the_watch(tmp_path: Path) -> None:
    before = _inotify_descriptors()
    assert await watcher.probe(watch_points(workspace(tmp_path))) is None
    assert _inotify_descriptors() == before


def test_events_are_read_from_the_kernel_layout() -> None:
    def event(wd: int, mask: int, name: bytes, padded: int) -> bytes:
        return struct.pack("iIII", wd, mask, 0, padded) + name.ljust(padded, b"\0")

    buffer = event(1, inotify.IN_CREATE, b"SKILL.md", 16) + event(2, inotify.IN_DELETE_SELF, b"", 0)
    assert list(inotify.parse(buffer)) == [
        inotify.Event(1, inotify.IN_CREATE, "SKILL.md"),
        inotify.Event(2, inotify.IN_DELETE_SELF, ""),
    ]
    assert list(inotify.parse(buffer[:10])) == []  # a header cut short is no event


def _inotify_descriptors() -> int:
    def is_inotify(fd: str) -> bool:
        try:
            return os.readlink(f"/proc/self/fd/{fd}") == "anon_inode:inotify"
        except OSError:
            return False

    return sum(1 for fd in os.listdir("/proc/self/fd") if is_inotify(fd))
