"""A workspace's first snapshot, written straight into the shadow repository as one pack and an
index, because ``git add`` is slow exactly there.

``git add`` stores every new file as a loose object (a file of its own, written and renamed);
on a 20,000-file workspace that takes seconds. Here each file is read once, hashed, and
appended to a single pack (small files uncompressed, in zlib's stored blocks; larger ones at
level 1); git's ``index-pack`` then indexes the pack, and the shadow's index is written with
each file's stat data, so the next snapshot only looks again at what changed.

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
from pathlib import Path
from typing import BinaryIO, Literal

from msgspec import Struct, field

BLOB, TREE = 3, 2
STORED_UP_TO = 16 * 1024  # bytes; a larger file is compressed (level 1)
REGULAR, EXECUTABLE, SYMLINK, DIRECTORY = b"100644", b"100755", b"120000", b"40000"


class _Folder(Struct):
    files: dict[bytes, tuple[bytes, bytes]] = field(
        default_factory=dict[bytes, tuple[bytes, bytes]]
    )
    folders: dict[bytes, _Folder] = field(default_factory=dict[bytes, "_Folder"])


# A stored file: its path, mode, blob id and stat data. A plain tuple: 20,000 of them are made
# on the way to a first snapshot, and nothing is made faster.
_Staged = tuple[bytes, bytes, bytes, os.stat_result]


def write_first_snapshot(
    git_dir: Path,
    workspace: Path,
    paths: Iterable[bytes],
    max_size: int,
    index_pack: Callable[[Path], Callable[[], object]],
) -> tuple[str, tuple[bytes, ...]]:
    """Store the files ``paths`` (relative to ``workspace``); their tree's id, and the paths
    left out for being over ``max_size`` bytes.

    ``index_pack`` starts ``git index-pack`` on the pack file it is given and returns a call
    that waits for it (raising if it failed); the shadow's index is written meanwhile, and put
    in place only once the pack is. A file that vanishes or cannot be read meanwhile is left
    out, as ``git add`` would.
    """
    pack_dir = git_dir / "objects" / "pack"
    pack_dir.mkdir(parents=True, exist_ok=True)
    temporary = pack_dir / f"tmp-heron-{os.getpid()}.pack"
    partial_index = git_dir / "index.heron-tmp"
    staged: list[_Staged] = []
    too_big: list[bytes] = []
    root_fd = os.open(workspace, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with temporary.open("w+b") as pack:
            pack.write(b"PACK" + struct.pack(">II", 2, 0))  # the count is written at the end
            for path in sorted(paths):
                item = _stage(root_fd, path, max_size, pack)
                if item == "too big":
                    too_big.append(path)
                elif item is not None:
                    staged.append(item)
            tree, trees = _write_trees(_folders(staged), pack)
            count = len(staged) + trees
            name = _finish(pack, count)
        final = pack_dir / f"pack-{name}.pack"
        temporary.replace(final)
        indexed = index_pack(final)
        try:
            _write_index(partial_index, staged)
        finally:
            try:
                indexed()
            except BaseException:
                final.unlink(missing_ok=True)  # a pack git could not index is of no use
                raise
        partial_index.replace(git_dir / "index")
    finally:
        os.close(root_fd)
        temporary.unlink(missing_ok=True)
        partial_index.unlink(missing_ok=True)
    return tree, tuple(too_big)


def _stage(
    root: int, path: bytes, max_size: int, pack: BinaryIO
) -> _Staged | Literal["too big"] | None:
    """One file into the pack, read through the workspace's descriptor ``root``."""
    try:
        read = _read(root, path, max_size)
    except OSError:
        return None
    if not isinstance(read, tuple):
        return read
    data, mode, info = read
    pack.write(_packed(BLOB, data))
    return (path, mode, hashlib.sha1(b"blob %d\0" % len(data) + data).digest(), info)


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
        data = os.read(fd, info.st_size + 1)  # one read, for all but a file that changed
        if len(data) != info.st_size:  # it grew or shrank, or the read was short: read on
            chunks = [data]
            while chunks[-1]:
                chunks.append(os.read(fd, 1 << 20))
            data = b"".join(chunks)
    finally:
        os.close(fd)
    return data, EXECUTABLE if info.st_mode & stat.S_IXUSR else REGULAR, info


def _folders(staged: Iterable[_Staged]) -> _Folder:
    """The staged files as a tree of folders; its root."""
    by_folder: dict[bytes, dict[bytes, tuple[bytes, bytes]]] = {}
    for path, mode, sha, _ in staged:
        folder, _, name = path.rpartition(b"/")
        files = by_folder.get(folder)
        if files is None:
            files = by_folder[folder] = {}
        files[name] = (mode, sha)
    root = _Folder()
    for folder, files in by_folder.items():
        node = root
        for part in folder.split(b"/") if folder else ():
            node = node.folders.setdefault(part, _Folder())
        node.files = files
    return root


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
    pack.write(_packed(TREE, body))
    return hashlib.sha1(b"tree %d\0" % len(body) + body).hexdigest(), written + 1


def _packed(kind: int, data: bytes) -> bytes:
    """One object as the pack holds it: its type and size, then its deflated bytes."""
    size = len(data)
    header = bytearray()
    byte = (kind << 4) | (size & 0x0F)
    size >>= 4
    while size:
        header.append(byte | 0x80)
        byte, size = size & 0x7F, size >> 7
    header.append(byte)
    return bytes(header) + _deflate(data)


_STORED = struct.Struct("<BHH")  # a stored block's head: last block, length, its complement
_ADLER = struct.Struct(">I")


def _deflate(data: bytes) -> bytes:
    """zlib's format; small data in stored blocks, which cost no compressor set-up."""
    if len(data) > STORED_UP_TO:
        return zlib.compress(data, 1)
    size = len(data)  # one block: STORED_UP_TO is under a block's 65,535 bytes
    block = _STORED.pack(1, size, size ^ 0xFFFF) + data
    return b"\x78\x01" + block + _ADLER.pack(zlib.adler32(data))


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


_INDEX_ENTRY = struct.Struct(">10I20sH")  # stat data, mode, blob id, flags (the path's length)
_WORD = 0xFFFFFFFF  # git keeps the low 32 bits of a device, inode or size


def _write_index(target: Path, staged: list[_Staged]) -> None:
    """Git's index v2, with the stat data git compares to tell an unchanged file."""
    parts = [b"DIRC" + struct.pack(">II", 2, len(staged))]
    for path, mode, sha, info in staged:  # in git's order: staged so
        ctime, ctime_ns = divmod(info.st_ctime_ns, 1_000_000_000)
        mtime, mtime_ns = divmod(info.st_mtime_ns, 1_000_000_000)
        head = _INDEX_ENTRY.pack(
            ctime & _WORD, ctime_ns, mtime & _WORD, mtime_ns, info.st_dev & _WORD,
            info.st_ino & _WORD, int(mode, 8), info.st_uid & _WORD, info.st_gid & _WORD,
            info.st_size & _WORD, sha, min(len(path), 0xFFF),
        )  # fmt: skip
        padding = 8 - (_INDEX_ENTRY.size + len(path)) % 8  # at least one NUL, to a multiple of 8
        parts.append(head + path + b"\0" * padding)
    body = b"".join(parts)
    target.write_bytes(body + hashlib.sha1(body).digest())
