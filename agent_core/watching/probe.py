"""Whether a folder can be watched here, asked before a watch starts: on a network file system
(NFS, SMB, sshfs, ...) inotify hears only this machine's changes, so a watch would miss the
others'; there Heron keeps to the checks each prompt makes."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

NETWORK = frozenset(
    {"nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "afs", "ceph", "glusterfs", "lustre",
     "fuse.sshfs", "fuse.rclone", "fuse.gcsfuse", "fuse.s3fs", "davfs", "fuse.davfs2"}
)  # fmt: skip
MOUNTS = Path("/proc/self/mountinfo")


def on_network(folders: Iterable[Path]) -> str | None:
    """Why these folders are better not watched: the first on a network file system (None:
    none is, or this is not Linux, where the mount table is not read)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        table = MOUNTS.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for folder in sorted(folders):
        kind = filesystem_of(folder.resolve(), table)
        if kind in NETWORK:
            return f"{folder} is on a network file system ({kind}): a watch misses others' changes"
    return None


def filesystem_of(path: Path, mountinfo: str) -> str | None:
    """The type of the file system ``path`` lies on, by the longest mount point above it in a
    ``/proc/self/mountinfo`` text (pure)."""
    best: tuple[int, str] | None = None
    for line in mountinfo.splitlines():
        fields = line.split()
        if " - " not in line or len(fields) < 5:
            continue
        point = Path(fields[4].replace("\\040", " "))
        kind = line.split(" - ", 1)[1].split()[0]
        if path.is_relative_to(point) and (best is None or len(point.parts) >= best[0]):
            best = (len(point.parts), kind)
    return best[1] if best else None
