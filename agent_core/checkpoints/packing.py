"""A workspace's first snapshot, written straight into the shadow repository as one pack and an
index, because ``git add`` is slow exactly there.

``git add`` stores every new file as a loose object (a file of its own, written and renamed);
on a 20,000-file workspace that takes seconds. Here each file is read once, hashed, and
appended to a single pack (small files uncompressed, in zlib's stored blocks; larger ones at
level 1); git's ``index-pack`` then indexes the pack, and the shadow's index is written with
each file's stat data, so the next snapshot (``git add``) only looks again at what changed.

Formats: git's pack v2 and index v2 (``Documentation/gitformat-pack.txt``,
``gitformat-index.txt``). Paths are bytes, as git stores them.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import struct
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Literal

BLOB, TREE = 3, 2
STORED_UP_TO = 16 * 1024  # bytes; a larger file is compressed (level 1)
REGULAR, EXECUTABLE, SYMLINK, DIRECTORY = b"100644", b"100755", b"120000", b"40000"


@dataclass
class _Folder:
    files: dict[bytes, tuple[bytes, bytes]] = field(
        default_factory=dict[bytes, tuple[bytes, bytes]]
    )
    folders: dict[bytes, _Folder] = field(default_factory=dict[bytes, "_Folder"])


@dataclass(frozen=True)
class _Staged:
    path: bytes
    mode: bytes
    sha: bytes
    stat: os.stat_result


def write_first_snapshot(
    git_dir: Path,
    workspace: Path,
    paths: Iterable[str],
    max_size: int,
    index_pack: Callable[[Path], None],
) -> tuple[str, tuple[str, ...]]:
    """Store the files ``paths`` (relative to ``workspace``); their tree's id, and the paths
    left out for being over ``max_size`` bytes.

    ``index_pack`` runs ``git index-pack`` on the pack file it is given. A file that vanishes
    or cannot be read meanwhile is left out, as ``git add`` would.
    """
    pack_dir = git_dir / "objects" / "pack"
    pack_dir.mkdir(parents=True, exist_ok=True)
    temporary = pack_dir / f"tmp-heron-{os.getpid()}.pack"
    staged: list[_Staged] = []
    too_big: list[str] = []
    root = _Folder()
    root_fd = os.open(workspace, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with temporary.open("w+b") as pack:
            pack.write(b"PACK" + struct.pack(">II", 2, 0))  # the count is written at the end
            count = 0
            for relative in sorted(paths):
                item = _stage(root_fd, relative, max_size, pack)
                if item == "too big":
                    too_big.append(relative)
                elif item is not None:
                    staged.append(item)
                    _place(root, item)
                    count += 1
            tree, trees = _write_trees(root, pack)
            count += trees
            name = _finish(pack, count)
        final = pack_dir / f"pack-{name}.pack"
        temporary.replace(final)
        index_pack(final)
    finally:
        os.close(root_fd)
        temporary.unlink(missing_ok=True)
    _write_index(git_dir / "index", staged)
    return tree, tuple(too_big)


def _stage(
    root: int, relative: str, max_size: int, pack: BinaryIO
) -> _Staged | Literal["too big"] | None:
    """One file into the pack, read through the workspace's descriptor ``root``."""
    path = os.fsencode(relative)
    try:
        read = _read(root, path, max_size)
    except OSError:
        return None
    if not isinstance(read, tuple):
        return read
    data, mode, info = read
    digest = hashlib.sha1(b"blob %d\0" % len(data))
    digest.update(data)
    _append(pack, BLOB, data)
    return _Staged(path, mode, digest.digest(), info)


def _read(
    root: int, path: bytes, max_size: int
) -> tuple[bytes, bytes, os.stat_result] | Literal["too big"] | None:
    """A file's bytes, mode and stat; a symlink's target. Plain ``os`` calls on a descriptor:
    on 20,000 files, Python's file objects and path joins cost more than the reading."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=root)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        info = os.lstat(path, dir_fd=root)
        return os.readlink(path, dir_fd=root), SYMLINK, info
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None  # pipes, sockets, devices: git keeps none of them
        if info.st_size > max_size:
            return "too big"
        chunks = [os.read(fd, info.st_size + 1)]
        while chunks[-1]:
            chunks.append(os.read(fd, 1 << 20))
    finally:
        os.close(fd)
    return b"".join(chunks), EXECUTABLE if info.st_mode & stat.S_IXUSR else REGULAR, info


def _place(root: _Folder, item: _Staged) -> None:
    *folders, name = item.path.split(b"/")
    node = root
    for folder in folders:
        node = node.folders.setdefault(folder, _Folder())
    node.files[name] = (item.mode, item.sha)


def _write_trees(folder: _Folder, pack: BinaryIO) -> tuple[str, int]:
    """The folder's tree id, after appending it and every tree below it; and how many."""
    entries: list[tuple[bytes, bytes, bytes]] = []  # sort key, mode, sha
    written = 0
    for name, child in folder.folders.items():
        tree, count = _write_trees(child, pack)
        entries.append((name + b"/", DIRECTORY + b" " + name, bytes.fromhex(tree)))
        written += count
    entries += [(name, mode + b" " + name, sha) for name, (mode, sha) in folder.files.items()]
    entries.sort()  # git orders a folder's name as if it ended in "/"
    body = b"".join(head + b"\0" + sha for _, head, sha in entries)
    _append(pack, TREE, body)
    return hashlib.sha1(b"tree %d\0" % len(body) + body).hexdigest(), written + 1


def _append(pack: BinaryIO, kind: int, data: bytes) -> None:
    size = len(data)
    header = bytearray()
    byte = (kind << 4) | (size & 0x0F)
    size >>= 4
    while size:
        header.append(byte | 0x80)
        byte, size = size & 0x7F, size >> 7
    header.append(byte)
    pack.write(header)
    pack.write(_deflate(data))


def _deflate(data: bytes) -> bytes:
    """zlib's format; small data in stored blocks, which cost no compressor set-up."""
    if len(data) > STORED_UP_TO:
        return zlib.compress(data, 1)
    parts = [b"\x78\x01"]
    for start in range(0, max(len(data), 1), 0xFFFF):
        block = data[start : start + 0xFFFF]
        last = start + 0xFFFF >= len(data)
        parts.append(struct.pack("<BHH", last, len(block), len(block) ^ 0xFFFF) + block)
    parts.append(struct.pack(">I", zlib.adler32(data)))
    return b"".join(parts)


def _finish(pack: BinaryIO, count: int) -> str:
    """Write the object count into the header and the checksum at the end; the pack's name."""
    pack.seek(8)
    pack.write(struct.pack(">I", count))
    pack.seek(0)
    digest = hashlib.sha1()
    while chunk := pack.read(1 << 20):
        digest.update(chunk)
    pack.seek(0, os.SEEK_END)
    pack.write(digest.digest())
    return digest.hexdigest()


def _write_index(target: Path, staged: list[_Staged]) -> None:
    """Git's index v2, with the stat data git compares to tell an unchanged file."""
    body = bytearray(b"DIRC" + struct.pack(">II", 2, len(staged)))
    for item in sorted(staged, key=lambda s: s.path):
        info = item.stat
        fields = (
            int(info.st_ctime),
            info.st_ctime_ns % 1_000_000_000,
            int(info.st_mtime),
            info.st_mtime_ns % 1_000_000_000,
            info.st_dev,
            info.st_ino,
            int(item.mode, 8),
            info.st_uid,
            info.st_gid,
            info.st_size,
        )
        entry = struct.pack(">10I", *(f & 0xFFFFFFFF for f in fields))
        entry += item.sha + struct.pack(">H", min(len(item.path), 0xFFF)) + item.path
        entry += b"\0" * (8 - len(entry) % 8)  # at least one NUL, to a multiple of 8
        body += entry
    body += hashlib.sha1(body).digest()
    partial = target.with_name("index.heron-tmp")
    partial.write_bytes(body)
    partial.replace(target)
