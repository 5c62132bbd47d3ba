"""The shadow repository: a bare git repository per workspace under ``$HERON_HOME``, whose work
tree is the workspace but whose index, objects and refs are Heron's own.

The user's ``.git`` is never read or written: git is pointed at the shadow with ``GIT_DIR`` and
at the workspace with ``GIT_WORK_TREE``, skips any folder named ``.git`` on its own, and honours
the workspace's ``.gitignore`` files (and ``.git/info/exclude``). Snapshots are byte-exact (no
line-ending or filter conversion: the shadow's ``info/attributes`` switches them off) and
incremental: the shadow's index remembers what each file looked like, so an unchanged file is
not read again, and content is stored once however many checkpoints hold it.

Every call is blocking; the caller runs them in a worker thread. Like Heron's other git calls,
these switch off everything configuration could make git run (``safety.git``), and none waits
without end: the git calls of one piece of work share a deadline and can be stopped from another
thread (``watched``; ``shadow_git``). What the workspace can do to make git wait for ever (a
FIFO named ``.gitignore``) is looked for before git runs, where it is already known, and when a
call stalls; the snapshot then fails with the file named.
"""

from __future__ import annotations

import copy
import errno
import fcntl
import functools
import hashlib
import os
import time
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from msgspec import Struct

from agent_core.checkpoints.packing import write_first_snapshot
from agent_core.checkpoints.shadow_git import LIMIT_S, ShadowError, ShadowGit
from agent_core.safety.git import GitWatch

REF_ROOT = "refs/heron"
LOCK_POLL_S = 0.02  # how often a writer waiting for another one looks again
STALE_LOCKS = ("index.lock", "packed-refs.lock")  # left by a git killed mid-write
# Stage exactly the paths given: no pathspec matching, no walk of the work tree. A path
# that is gone is dropped; a file where a folder was (or the reverse) replaces it.
STAGE = ("update-index", "--add", "--remove", "--replace", "-z", "--stdin")
REFUSED = "Ignoring path "  # what update-index says of a name git will not store, going on
# Out of the index, without looking at the work tree: removed files (their folder may be a
# symlink now), files grown too big.
UNSTAGE = ("update-index", "--force-remove", "-z", "--stdin")
# Out of the index by name, for names update-index will not touch at all.
FORGET = (
    "rm",
    "--cached",
    "--force",  # the shadow has no HEAD to keep staged content safe against
    "-q",
    "--ignore-unmatch",
    "--pathspec-from-file=-",
    "--pathspec-file-nul",
)
MODIFIED = ("diff-files", "--name-status", "-z")  # tracked files: M changed, D removed, T type
NEW = ("ls-files", "-z", "--others", "--exclude-standard")  # "dir/": a repository of its own
IGNORED = ("check-ignore", "-z", "--stdin", "--no-index")  # by the ignore files alone
EXACT = "* -text -eol -ident -filter -working-tree-encoding\n"  # bytes as they are on disk
PATCH = (
    "diff",
    "--binary",
    "--full-index",
    "--no-color",
    "--no-renames",
    "--no-textconv",
    "--no-ext-diff",
)


class Snapshot(Struct, frozen=True):
    tree: str
    skipped: tuple[str, ...] = ()  # too large to keep
    partial: bool = False  # stopped at the file limit
    refused: tuple[str, ...] = ()  # names git will not store (a spelling of ".git")


class Entry(Struct, frozen=True):
    mode: str  # 100644, 100755, 120000 (symlink), 160000 (a nested repository)
    blob: str


class ShadowRepository:
    def __init__(
        self,
        home: Path,
        workspace: Path,
        environment: Mapping[str, str],
        *,
        max_file_size: int,
        max_files: int,
    ) -> None:
        """``environment``: Heron's, secrets scrubbed (git runs with it)."""
        key = hashlib.sha256(str(workspace).encode()).hexdigest()[:20]
        self.path = home / "checkpoints" / key
        self.workspace = workspace
        self.max_file_size, self.max_files = max_file_size, max_files
        self._git = ShadowGit(self.path, workspace, environment)

    def watch(self, limit_s: float = LIMIT_S) -> GitWatch:
        """A deadline and a stop for one piece of work on this shadow; a call that stalls has
        the workspace looked at for a file to blame."""
        return self._git.watch(limit_s)

    def watched(self, watch: GitWatch) -> ShadowRepository:
        """This shadow, its git calls under ``watch`` (for one piece of work)."""
        bound = copy.copy(self)
        bound._git = self._git.watched(watch)
        return bound

    # Snapshots.

    def snapshot(self) -> Snapshot:
        """The workspace as a tree. The first one is written directly (``packing``); later
        ones stage only what git reports changed since. Hold ``locked()`` around it.

        A file known to make git wait for ever fails it before git starts."""
        if blocker := self._git.blocker():
            raise ShadowError(blocker)
        self._ensure()
        if not (self.path / "index").is_file():
            return self._first_snapshot()
        changed = self._changes()
        if not changed:
            return Snapshot(self._git.text("write-tree").strip())
        new = [p for p, tag in changed.items() if tag == "?" and not p.endswith("/")]
        overflow = new[max(self._room(len(new), changed), 0) :]
        big = [p for p, tag in changed.items() if tag in "C?" and self._too_big(p)]
        nested = {p for p in changed if p.endswith("/")}  # a repository of its own: not kept
        left_out = {*overflow, *big, *nested}
        refused: list[str] = []
        if gone := [*big, *(p for p, tag in changed.items() if tag == "R")]:
            refused += self._update_index(UNSTAGE, gone)
        if staged := [p for p, tag in changed.items() if tag != "R" and p not in left_out]:
            refused += self._update_index(STAGE, staged)
        if held := [p for p in refused if changed.get(p) in ("C", "R")]:  # by an older index
            self._git.text(*FORGET, stdin="\0".join(held))
        tree = self._git.text("write-tree").strip()
        not_kept = tuple(p for p in refused if changed.get(p) != "R")
        return Snapshot(tree, tuple(big), bool(overflow), not_kept)

    def _update_index(self, args: Sequence[str], paths: list[str]) -> list[str]:
        """``update-index`` on ``paths``; the ones it would not touch (names git refuses)."""
        given = "\0".join(paths).encode("utf-8", "surrogateescape")
        _, said = self._git.collect(self._git.start(list(args), piped=True), given)
        lines = said.decode("utf-8", "surrogateescape").splitlines()
        return [line.removeprefix(REFUSED) for line in lines if line.startswith(REFUSED)]

    def _first_snapshot(self) -> Snapshot:
        files: list[bytes] = []  # bytes, in git's order once sorted
        refused: list[bytes] = []
        for path in self._git.run_looking(list(NEW)).split(b"\0"):
            if path and not path.endswith(b"/"):
                (refused if refused_name(path) else files).append(path)
        files.sort()
        kept = files[: self.max_files]
        tree, big = write_first_snapshot(
            self.path, self.workspace, kept, self.max_file_size, self._index_pack
        )
        return Snapshot(tree, _names(big), len(files) > len(kept), _names(refused))

    @contextmanager
    def locked(self) -> Generator[None]:
        """One writer at a time: sessions of one workspace share its shadow, across processes.
        The wait for another writer ends at the work's deadline, or when the work is stopped.
        Once it holds the lock, a git lock file found is one a killed git left: removed."""
        self.path.mkdir(parents=True, exist_ok=True)
        watch = self._git.current_watch()
        with (self.path.parent / f"{self.path.name}.lock").open("a") as lock:
            while not _try_lock(lock.fileno()):
                if watch.stopped or watch.remaining() <= 0:
                    raise ShadowError(
                        "another Heron session is still writing this workspace's checkpoints"
                    )
                time.sleep(LOCK_POLL_S)
            try:
                for name in STALE_LOCKS:
                    (self.path / name).unlink(missing_ok=True)
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def commit(self, tree: str, parent: str | None, message: str) -> str:
        args = ["commit-tree", tree, "-m", message]
        if parent:
            args += ["-p", parent]
        return self._git.text(*args).strip()

    def entries(self, tree: str) -> dict[str, Entry]:
        """Every file of a tree: path -> mode and blob."""
        listing = self._git.text("ls-tree", "-r", "-z", "--full-tree", tree)
        found: dict[str, Entry] = {}
        for line in listing.split("\0"):
            if line:
                meta, _, path = line.partition("\t")
                mode, _, blob = meta.split(" ")
                found[path] = Entry(mode, blob)
        return found

    def tree_entries(self, tree: str, paths: Sequence[str]) -> dict[str, Entry]:
        """The entries of ``paths`` (files) in a tree or commit: path -> mode and blob."""
        listing = self._git.text("ls-tree", "-z", "--full-tree", tree, "--", *paths)
        found: dict[str, Entry] = {}
        for line in listing.split("\0"):
            meta, _, path = line.partition("\t")
            parts = meta.split(" ")
            if path and len(parts) == 3 and parts[1] == "blob":
                found[path] = Entry(parts[0], parts[2])
        return found

    def ignored(self, paths: Sequence[str]) -> set[str]:
        """Which of ``paths`` the workspace's ignore files leave out of snapshots."""
        given = "\0".join(paths).encode("utf-8", "surrogateescape")
        started = self._git.start(list(IGNORED), piped=True, literal=False)  # plain paths
        out, _ = self._git.collect(started, given, succeeded=(0, 1))  # 1: none is ignored
        return {p for p in out.decode("utf-8", "surrogateescape").split("\0") if p}

    def changed_paths(self, old: str, new: str) -> list[str]:
        """The paths that differ between two commits or trees."""
        listed = self._git.text("diff-tree", "-r", "-z", "--name-only", "--no-renames", old, new)
        return [p for p in listed.split("\0") if p]

    def patch(self, old: str, new: str) -> bytes:
        """What differs from tree ``old`` to tree ``new`` as a patch ``git apply`` takes,
        binary files included (``heron batch``'s diff of a run)."""
        return self._git.run([*PATCH, old, new])

    def exists(self) -> bool:
        return (self.path / "HEAD").is_file()

    def blobs(self, ids: Sequence[str]) -> dict[str, bytes]:
        """The contents of blobs, read by one ``git cat-file --batch``."""
        out = self._git.run(["cat-file", "--batch"], stdin="".join(f"{i}\n" for i in ids))
        found: dict[str, bytes] = {}
        at = 0
        while at < len(out):
            header_end = out.index(b"\n", at)
            name, kind, *size = out[at:header_end].decode().split(" ")
            if kind != "blob" or not size:
                raise ShadowError(f"the checkpoint repository lacks {name}")
            size = size[0]
            start = header_end + 1
            found[name] = out[start : start + int(size)]
            at = start + int(size) + 1  # the content ends with a newline of the format's
        return found

    # Refs: two per checkpoint, refs/heron/<session>/<number>/before and .../after.

    def refs(self, prefix: str) -> dict[str, str]:
        listed = self._git.text(
            "for-each-ref", "--format=%(refname) %(objectname)", f"{REF_ROOT}/{prefix}"
        )
        return dict(line.split(" ", 1) for line in listed.splitlines() if line)

    def ref_times(self) -> dict[str, int]:
        """Every checkpoint ref, with its commit's time (seconds since the epoch)."""
        listed = self._git.text(
            "for-each-ref", "--format=%(refname) %(committerdate:unix)", REF_ROOT
        )
        return {name: int(when) for name, when in (line.split(" ") for line in listed.splitlines())}

    def set_ref(self, name: str, commit: str) -> None:
        self._git.text("update-ref", f"{REF_ROOT}/{name}", commit)

    def delete_refs(self, names: Sequence[str]) -> None:
        if names:
            self._git.text("update-ref", "--stdin", stdin="".join(f"delete {n}\n" for n in names))

    def message(self, commit: str) -> str:
        return self._git.text("cat-file", "commit", commit).partition("\n\n")[2]

    def prune(self) -> None:
        """Drop what no checkpoint holds any more."""
        self._git.text("gc", "--prune=now", "--quiet")

    def size(self) -> int:
        return sum(f.stat().st_size for f in self.path.rglob("*") if f.is_file())

    # Plumbing.

    def _ensure(self) -> None:
        if (self.path / "HEAD").is_file():
            if not (self.path / "objects").is_dir():
                raise ShadowError(f"the checkpoint repository {self.path} is damaged")
            return
        self.path.mkdir(parents=True, exist_ok=True)
        self._git.run(["init", "--quiet", "--bare", str(self.path)], bare=True)
        (self.path / "info").mkdir(exist_ok=True)
        (self.path / "info" / "attributes").write_text(EXACT, encoding="utf-8")

    def _changes(self) -> dict[str, str]:
        """What changed since the last snapshot: path -> ``C`` changed, ``R`` removed, ``?`` new
        (a path ending in ``/`` is a repository of its own). The two listings run side by side:
        each walks the work tree, and together they are most of a snapshot's time."""
        modified, new = self._git.run_together(MODIFIED, NEW)
        changed: dict[str, str] = {}
        fields = modified.decode("utf-8", "surrogateescape").split("\0")
        for status, path in zip(fields[::2], fields[1::2], strict=False):
            if path:
                changed[path] = "R" if status == "D" else "C"
        for path in new.decode("utf-8", "surrogateescape").split("\0"):
            if path:
                changed[path] = "?"
        return changed

    def _room(self, new: int, changed: dict[str, str]) -> int:
        """How many new files fit under ``max_files``, now that ``changed`` is known."""
        removed = sum(tag == "R" for tag in changed.values())
        indexed = self._indexed_at_most()
        if indexed + new - removed > self.max_files:  # near the limit: count them
            indexed = self._git.run(["ls-files", "-z"]).count(b"\0")
        return self.max_files - indexed + removed

    def _indexed_at_most(self) -> int:
        """At most how many files the index holds, from the headers of its files. A split index
        holds what changed since its shared part was written; a file changed since is in both,
        so the sum can be over (then ``_room`` counts), never under."""
        shared = [_entry_count(part) for part in self.path.glob("sharedindex.*")]
        return _entry_count(self.path / "index") + max(shared, default=0)

    def _too_big(self, relative: str) -> bool:
        try:
            return os.lstat(self.workspace / relative).st_size > self.max_file_size
        except OSError:
            return False

    def _index_pack(self, pack: Path) -> Callable[[], object]:
        """Start ``git index-pack`` on ``pack``; a call that waits for it."""
        return functools.partial(self._git.collect, self._git.start(["index-pack", str(pack)]))


def refused_name(path: bytes) -> bool:
    """Whether git refuses to store ``path``: a part of it is ``.git`` or NTFS's ``git~1``, in
    any case, with any trailing dots and spaces (git's rule against writing into a ``.git``
    on checkout). Git also refuses a few names only as symlinks (``.gitmodules``); those
    reach the index by the first snapshot and leave it once they change."""
    return b"git" in path.lower() and any(
        part.lower().rstrip(b". ") in (b".git", b"git~1") for part in path.split(b"/")
    )


def _try_lock(fd: int) -> bool:
    """Take the exclusive lock on ``fd`` if no one holds it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


def _names(paths: Iterable[bytes]) -> tuple[str, ...]:
    return tuple(p.decode("utf-8", "surrogateescape") for p in paths)


def _entry_count(index: Path) -> int:
    """The number of entries an index file's header gives."""
    with index.open("rb") as file:
        return int.from_bytes(file.read(12)[8:12], "big")
