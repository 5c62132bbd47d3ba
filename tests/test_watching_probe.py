"""Where a watch would not hear every change (``agent_core.watching.probe``): a folder on a
network file system, read from a mount table (pure), and this machine's own folders."""

from __future__ import annotations

from pathlib import Path

from agent_core.watching.probe import filesystem_of, on_network

MOUNTS = """\
27 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw
40 27 0:50 / /home/ann/shared rw,relatime - nfs4 server:/export rw
41 40 0:51 / /home/ann/shared/local\\040disk rw - ext4 /dev/sdb1 rw
42 27 0:52 / /mnt/box rw - fuse.sshfs box:/ rw
"""


def test_the_file_system_of_a_folder_is_its_nearest_mount() -> None:
    assert filesystem_of(Path("/home/ann/shared/repo"), MOUNTS) == "nfs4"
    assert filesystem_of(Path("/home/ann/shared/local disk/x"), MOUNTS) == "ext4"
    assert filesystem_of(Path("/home/ann/repo"), MOUNTS) == "ext4"
    assert filesystem_of(Path("/mnt/box/src"), MOUNTS) == "fuse.sshfs"
    assert filesystem_of(Path("/home/ann/shared"), "no mounts here\n") is None


def test_folders_on_this_machine_are_watched(tmp_path: Path) -> None:
    assert on_network([tmp_path, tmp_path / "missing-is-fine"]) is None
