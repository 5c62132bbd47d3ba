"""The one helper for files Heron reads on its own from a workspace: inside the root after every
link is resolved, regular, capped, never blocking."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import anyio
import pytest

from agent_core.safety.safe_open import (
    UnsafeFile,
    list_inside,
    list_own,
    read_inside,
    read_own,
    read_safely,
    why_unreadable,
)


def test_a_regular_file_inside_the_root_is_read(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("be brief")
    read = read_inside(tmp_path / "AGENTS.md", [tmp_path])
    assert read.text() == "be brief" and not read.truncated


def test_a_link_that_stays_inside_the_root_is_followed(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "agents.md").write_text("inside")
    (tmp_path / "AGENTS.md").symlink_to("docs/agents.md")
    assert read_inside(tmp_path / "AGENTS.md", [tmp_path]).text() == "inside"


@pytest.mark.parametrize("target", ["secret", "/proc/self/environ"])
def test_a_link_that_leads_outside_the_root_is_refused(tmp_path: Path, target: str) -> None:
    workspace = tmp_path / "repo"
    workspace.mkdir()
    (tmp_path / "secret").write_text("KEY=sk-live")
    link_target = tmp_path / target if target == "secret" else Path(target)
    (workspace / "AGENTS.md").symlink_to(link_target)
    with pytest.raises(UnsafeFile, match="outside the workspace"):
        read_inside(workspace / "AGENTS.md", [workspace])


def test_a_folder_that_links_outside_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "ssh"
    outside.mkdir()
    (outside / "id_rsa.md").write_text("PRIVATE KEY")
    workspace = tmp_path / "repo"
    (workspace / ".heron").mkdir(parents=True)
    (workspace / ".heron" / "commands").symlink_to(outside)
    with pytest.raises(UnsafeFile, match="outside"):
        read_inside(workspace / ".heron" / "commands" / "id_rsa.md", [workspace])


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "hang.md")
    with pytest.raises(UnsafeFile, match="named pipe"):
        read_inside(tmp_path / "hang.md", [tmp_path])


def test_a_socket_a_device_and_a_folder_are_refused(tmp_path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "sock.md"))
        with pytest.raises(UnsafeFile, match="socket"):
            read_inside(tmp_path / "sock.md", [tmp_path])
    (tmp_path / "null.md").symlink_to("/dev/null")
    with pytest.raises(UnsafeFile, match="outside"):
        read_inside(tmp_path / "null.md", [tmp_path])
    (tmp_path / "folder.md").mkdir()
    with pytest.raises(UnsafeFile, match="folder"):
        read_inside(tmp_path / "folder.md", [tmp_path])


def test_the_root_itself_is_not_a_file_inside_it(tmp_path: Path) -> None:
    with pytest.raises(UnsafeFile, match="outside"):
        read_inside(tmp_path, [tmp_path])


def test_reads_stop_at_the_cap(tmp_path: Path) -> None:
    (tmp_path / "big.md").write_bytes(b"x" * 5000)
    read = read_inside(tmp_path / "big.md", [tmp_path], cap=1000)
    assert len(read.data) == 1000 and read.truncated
    exact = read_inside(tmp_path / "big.md", [tmp_path], cap=5000)
    assert len(exact.data) == 5000 and not exact.truncated


def test_any_of_several_roots_will_do(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    (second / "x.md").write_text("second")
    assert read_inside(second / "x.md", [first, second]).text() == "second"


def test_a_missing_file_is_the_system_s_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as caught:
        read_inside(tmp_path / "absent.md", [tmp_path])
    assert why_unreadable(caught.value) == "unreadable: No such file or directory"


def test_the_async_form_reads_in_a_worker_thread(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("async")
    os.mkfifo(tmp_path / "b.md")

    async def main() -> None:
        assert (await read_safely(tmp_path / "a.md", [tmp_path])).text() == "async"
        with pytest.raises(UnsafeFile):
            await read_safely(tmp_path / "b.md", [tmp_path])

    anyio.run(main)


def test_the_reason_names_the_roots_and_the_size_is_known(tmp_path: Path) -> None:
    (tmp_path / "skill").mkdir()
    (tmp_path / "secret").write_text("KEY")
    (tmp_path / "skill" / "ref.md").symlink_to(tmp_path / "secret")
    with pytest.raises(UnsafeFile, match=r"outside the skill's folder \(it leads to .*secret\)"):
        read_inside(tmp_path / "skill" / "ref.md", [tmp_path / "skill"], where="the skill's folder")
    (tmp_path / "skill" / "big.md").write_bytes(b"y" * 3000)
    assert read_inside(tmp_path / "skill" / "big.md", [tmp_path], cap=10).size == 3000


def test_a_folder_is_listed_inside_its_root_without_opening_anything(tmp_path: Path) -> None:
    commands = tmp_path / ".heron" / "commands"
    commands.mkdir(parents=True)
    (commands / "b.md").write_text("b")
    (commands / "a.md").write_text("a")
    os.mkfifo(commands / "hang.md")  # listed, never opened
    (commands / "out.md").symlink_to("/proc/self/environ")
    listing = list_inside(commands, [tmp_path])
    assert [p.name for p in listing.entries] == ["a.md", "b.md", "hang.md", "out.md"]
    assert listing.entries[0] == commands / "a.md" and not listing.cut
    assert list_inside(tmp_path, [tmp_path]).entries == (tmp_path / ".heron",)  # the root itself
    cut = list_inside(commands, [tmp_path], limit=2)
    assert len(cut.entries) == 2 and cut.cut


def test_a_folder_that_leads_outside_or_is_no_folder_is_not_listed(tmp_path: Path) -> None:
    outside = tmp_path / "ssh"
    outside.mkdir()
    (outside / "id_rsa.md").write_text("PRIVATE KEY")
    workspace = tmp_path / "repo"
    (workspace / ".heron").mkdir(parents=True)
    (workspace / ".heron" / "commands").symlink_to(outside)
    with pytest.raises(UnsafeFile, match="outside the workspace"):
        list_inside(workspace / ".heron" / "commands", [workspace])
    (workspace / "file").write_text("x")
    with pytest.raises(UnsafeFile, match="a file, not a folder"):
        list_inside(workspace / "file", [workspace])
    os.mkfifo(workspace / "pipe")
    with pytest.raises(UnsafeFile, match="named pipe"):
        list_inside(workspace / "pipe", [workspace])
    with pytest.raises(FileNotFoundError):
        list_inside(workspace / "absent", [workspace])


def test_the_user_s_own_links_are_followed_but_not_to_a_fifo(tmp_path: Path) -> None:
    dotfiles, home = tmp_path / "dotfiles", tmp_path / "home"
    dotfiles.mkdir()
    home.mkdir()
    (dotfiles / "AGENTS.md").write_text("mine")
    (home / "AGENTS.md").symlink_to(dotfiles / "AGENTS.md")
    assert read_own(home / "AGENTS.md").text() == "mine"
    os.mkfifo(dotfiles / "pipe")
    (home / "CLAUDE.md").symlink_to(dotfiles / "pipe")
    with pytest.raises(UnsafeFile, match="named pipe"):
        read_own(home / "CLAUDE.md")
    (home / "commands").symlink_to(dotfiles)
    assert [p.name for p in list_own(home / "commands").entries] == ["AGENTS.md", "pipe"]
