"""The shadow repository: a bare git repository per workspace under ``$HERON_HOME``, whose work
tree is the workspace but whose index, objects and refs are Heron's own.

The user's ``.git`` is never read or written: git is pointed at the shadow with ``GIT_DIR`` and
at the workspace with ``GIT_WORK_TREE``, skips any folder named ``.git`` on its own, and honours
the workspace's ``.gitignore`` files (and ``.git/info/exclude``). Snapshots are byte-exact (no
line-ending or filter conversion: the shadow's ``info/attributes`` switches them off) and
incremental: the shadow's index remembers what each file looked like, so an unchanged file is
not read again, and content is stored once however many checkpoints hold it.

Every call is blocking; the caller runs them in a worker thread. Like Heron's other git calls,
these switch off everything configuration could make git run (``safety.git``).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import signal
import subprocess
from collections.abc import Generator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agent_core.checkpoints.packing import write_first_snapshot
from agent_core.errors import HeronError
from agent_core.safety.git import ENVIRONMENT, git_command

REF_ROOT = "refs/heron"
IDENTITY = {
    "GIT_AUTHOR_NAME": "Heron",
    "GIT_AUTHOR_EMAIL": "heron@localhost",
    "GIT_COMMITTER_NAME": "Heron",
    "GIT_COMMITTER_EMAIL": "heron@localhost",
}
SHADOW_SETTINGS = (
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.quotepath=false",
    "core.untrackedCache=true",
    "core.preloadIndex=true",
    "index.version=4",
    "gc.auto=0",
    "advice.addEmbeddedRepo=false",
    "advice.addIgnoredFile=false",
)
STAGE = ("add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul")
UNSTAGE = (
    "rm",
    "--cached",
    "-r",
    "-q",
    "--ignore-unmatch",
    "--pathspec-from-file=-",
    "--pathspec-file-nul",
)
EXACT = "* -text -eol -ident -filter -working-tree-encoding\n"  # bytes as they are on disk


class ShadowError(HeronError):
    """The shadow repository cannot be used (missing git, a corrupt repository, no disk)."""


@dataclass(frozen=True)
class Snapshot:
    tree: str
    skipped: tuple[str, ...] = ()  # too large to keep
    partial: bool = False  # stopped at the file limit


@dataclass(frozen=True)
class Entry:
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
        self._environment = {k: v for k, v in environment.items() if not k.startswith("GIT_")}
        self.max_file_size, self.max_files = max_file_size, max_files

    # Snapshots.

    def snapshot(self) -> Snapshot:
        """The workspace as a tree. The first one is written directly (``packing``); later
        ones stage only what git reports changed since. Hold ``locked()`` around it."""
        self._ensure()
        if not (self.path / "index").is_file():
            return self._first_snapshot()
        changed = self._changes()
        if not changed:
            return Snapshot(self._git("write-tree").strip())
        new = [p for p, tag in changed.items() if tag == "?" and not p.endswith("/")]
        room = self.max_files - self._indexed() + sum(tag == "R" for tag in changed.values())
        overflow = new[max(room, 0) :]
        big = [p for p, tag in changed.items() if tag in "C?" and self._too_big(p)]
        nested = {p for p in changed if p.endswith("/")}  # a repository of its own: not kept
        left_out = {*overflow, *big, *nested}
        if big:
            self._git(*UNSTAGE, stdin="\0".join(big))
        if staged := [p for p in changed if p not in left_out]:
            self._git(*STAGE, stdin="\0".join(staged))
        tree = self._git("write-tree").strip()
        return Snapshot(tree, tuple(big), bool(overflow))

    def _first_snapshot(self) -> Snapshot:
        listed = self._git("ls-files", "-z", "--others", "--exclude-standard").split("\0")
        files = sorted(p for p in listed if p and not p.endswith("/"))
        kept = files[: self.max_files]
        tree, big = write_first_snapshot(
            self.path, self.workspace, kept, self.max_file_size, self._index_pack
        )
        return Snapshot(tree, big, len(files) > len(kept))

    @contextmanager
    def locked(self) -> Generator[None]:
        """One writer at a time: sessions of one workspace share its shadow, across processes."""
        self.path.mkdir(parents=True, exist_ok=True)
        with (self.path.parent / f"{self.path.name}.lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def commit(self, tree: str, parent: str | None, message: str) -> str:
        args = ["commit-tree", tree, "-m", message]
        if parent:
            args += ["-p", parent]
        return self._git(*args).strip()

    def entries(self, tree: str) -> dict[str, Entry]:
        """Every file of a tree: path -> mode and blob."""
        listing = self._git("ls-tree", "-r", "-z", "--full-tree", tree)
        found: dict[str, Entry] = {}
        for line in listing.split("\0"):
            if line:
                meta, _, path = line.partition("\t")
                mode, _, blob = meta.split(" ")
                found[path] = Entry(mode, blob)
        return found

    def changed_paths(self, old: str, new: str) -> list[str]:
        """The paths that differ between two commits or trees."""
        listed = self._git("diff-tree", "-r", "-z", "--name-only", "--no-renames", old, new)
        return [p for p in listed.split("\0") if p]

    def exists(self) -> bool:
        return (self.path / "HEAD").is_file()

    def blobs(self, ids: Sequence[str]) -> dict[str, bytes]:
        """The contents of blobs, read by one ``git cat-file --batch``."""
        out = self._run(["cat-file", "--batch"], stdin="".join(f"{i}\n" for i in ids))
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
        listed = self._git(
            "for-each-ref", "--format=%(refname) %(objectname)", f"{REF_ROOT}/{prefix}"
        )
        return dict(line.split(" ", 1) for line in listed.splitlines() if line)

    def ref_times(self) -> dict[str, int]:
        """Every checkpoint ref, with its commit's time (seconds since the epoch)."""
        listed = self._git("for-each-ref", "--format=%(refname) %(committerdate:unix)", REF_ROOT)
        return {name: int(when) for name, when in (line.split(" ") for line in listed.splitlines())}

    def set_ref(self, name: str, commit: str) -> None:
        self._git("update-ref", f"{REF_ROOT}/{name}", commit)

    def delete_refs(self, names: Sequence[str]) -> None:
        if names:
            self._git("update-ref", "--stdin", stdin="".join(f"delete {n}\n" for n in names))

    def message(self, commit: str) -> str:
        return self._git("cat-file", "commit", commit).partition("\n\n")[2]

    def prune(self) -> None:
        """Drop what no checkpoint holds any more."""
        self._git("gc", "--prune=now", "--quiet")

    def size(self) -> int:
        return sum(f.stat().st_size for f in self.path.rglob("*") if f.is_file())

    # Plumbing.

    def _ensure(self) -> None:
        if (self.path / "HEAD").is_file():
            if not (self.path / "objects").is_dir():
                raise ShadowError(f"the checkpoint repository {self.path} is damaged")
            return
        self.path.mkdir(parents=True, exist_ok=True)
        self._run(["init", "--quiet", "--bare", str(self.path)], bare=True)
        (self.path / "info").mkdir(exist_ok=True)
        (self.path / "info" / "attributes").write_text(EXACT, encoding="utf-8")

    def _changes(self) -> dict[str, str]:
        """What changed since the last snapshot: path -> ``C`` changed, ``R`` removed, ``?`` new
        (a path ending in ``/`` is a repository of its own)."""
        listed = self._git(
            "ls-files", "-z", "-t", "--modified", "--deleted", "--others", "--exclude-standard"
        )
        changed: dict[str, str] = {}
        for line in listed.split("\0"):
            if line:  # a removed file is listed as both changed and removed
                tag, path = line[0], line[2:]
                changed[path] = "R" if "R" in (tag, changed.get(path)) else tag
        return changed

    def _indexed(self) -> int:
        """How many files the shadow's index holds: its header says."""
        with (self.path / "index").open("rb") as index:
            return int.from_bytes(index.read(12)[8:12], "big")

    def _too_big(self, relative: str) -> bool:
        try:
            return os.lstat(self.workspace / relative).st_size > self.max_file_size
        except OSError:
            return False

    def _index_pack(self, pack: Path) -> None:
        self._run(["index-pack", str(pack)])

    def _git(self, *args: str, stdin: str | None = None) -> str:
        return self._run(list(args), stdin=stdin).decode("utf-8", "surrogateescape")

    def _run(self, args: list[str], *, stdin: str | None = None, bare: bool = False) -> bytes:
        overrides = [*SHADOW_SETTINGS]
        exclude = self.workspace / ".git" / "info" / "exclude"
        if exclude.is_file():
            overrides.append(f"core.excludesFile={exclude}")
        command = git_command(args, overrides)
        if command is None:
            raise ShadowError("git is not installed, so Heron cannot keep checkpoints")
        environment: Mapping[str, str] = {
            **self._environment,
            **ENVIRONMENT,
            **IDENTITY,
            "GIT_LITERAL_PATHSPECS": "1",  # a file named '*' is that file
        }
        if not bare:
            environment = {
                **environment,
                "GIT_DIR": str(self.path),
                "GIT_WORK_TREE": str(self.workspace),
            }
        try:
            done = subprocess.run(
                command,
                cwd=self.workspace,
                input=stdin.encode("utf-8", "surrogateescape") if stdin is not None else None,
                capture_output=True,
                env=dict(environment),
                check=False,
            )
        except OSError as exc:
            raise ShadowError(f"git could not run: {exc.strerror}") from exc
        if done.returncode != 0:
            said = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise ShadowError(f"git {args[0]} failed: {said[-1] if said else _ended(done)}")
        return done.stdout


def _ended(done: subprocess.CompletedProcess[bytes]) -> str:
    """How a git that said nothing ended: its exit code, or the signal that stopped it."""
    if done.returncode >= 0:
        return f"exit code {done.returncode}"
    if -done.returncode == signal.SIGXFSZ:  # a file it wrote grew past the size limit
        return "a file grew past the file size limit (or the disk is full)"
    try:
        return f"stopped by {signal.Signals(-done.returncode).name}"
    except ValueError:
        return f"stopped by signal {-done.returncode}"
