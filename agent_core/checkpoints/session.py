"""One session's checkpoints: taken before the first change of a turn, listed, planned back to.

Each checkpoint is two commits in the workspace's shadow repository, under the session's refs:
``refs/heron/<session>/<n>/before`` (the workspace before the turn's first change; its
message carries the turn's metadata as JSON) and ``.../after`` (the workspace when the turn
ended). The refs are the whole state: a session loaded in another process finds them there,
a fork copies them, a deleted session drops them.

Git runs in a worker thread, one writer at a time per workspace (``ShadowRepository.locked``).
A checkpoint that cannot be taken never stops the turn: the tool goes ahead and the user gets
a notice saying why. Nothing here waits without end: each piece of work has a deadline
(``LIMIT_S``; ``HURRIED_S`` for the record of a cancelled turn), and a cancel of the task that
awaits it kills its git processes and returns at once (the worker thread is left to finish).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import anyio
from msgspec import Struct

from agent_core.checkpoints.coverage import Coverage, coverage
from agent_core.checkpoints.plan import RestorePlan, Turn, plan_restore
from agent_core.checkpoints.settings import CheckpointSettings
from agent_core.checkpoints.shadow import REF_ROOT, ShadowRepository, Snapshot
from agent_core.checkpoints.shadow_git import LIMIT_S, ShadowError
from agent_core.errors import HeronError

T = TypeVar("T")
PROMPT_CHARS = 200
HURRIED_S = 0.5  # the record of a cancelled turn: the user is waiting for the answer
SAFE_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")


class CheckpointError(HeronError):
    """A checkpoint cannot be listed, planned or restored; the message says why for the user."""


class Checkpoint(Struct, frozen=True):
    """What a tool call learns from ``before_change``."""

    number: int | None  # None: it could not be taken
    notice: str | None = None  # said once, by the call that took it: partial, or why not


class CheckpointInfo(Struct, frozen=True):
    number: int
    time: float
    prompt: str
    files_changed: int | None  # None: the turn never ended (Heron stopped)
    message_id: str = ""  # the prompt's id ("" in checkpoints taken before prompts had one)


class _Turn(Struct):
    prompt: str
    message_id: str
    number: int | None = None  # set once this turn's checkpoint is taken
    commit: str = ""  # its "before" commit
    partial: bool = False  # its snapshot stopped at the file limit
    failed: bool = False  # tried and could not: do not try again this turn


def session_checkpoints(
    settings: CheckpointSettings,
    home: Path,
    workspace: Path,
    session_id: str,
    environment: Mapping[str, str],
) -> Checkpoints:
    """A session's checkpoints as ``[checkpoints]`` configures them."""
    shadow = ShadowRepository(
        home,
        workspace,
        environment,
        max_file_size=settings.max_file_size,
        max_files=settings.max_files,
    )
    return Checkpoints(
        shadow,
        session_id,
        enabled=settings.enabled,
        keep_days=settings.keep_days,
        max_total_mb=settings.max_total_mb,
    )


class Checkpoints:
    def __init__(
        self,
        shadow: ShadowRepository,
        session_id: str,
        *,
        enabled: bool = True,
        keep_days: float = 30.0,
        max_total_mb: float = 2048.0,
    ) -> None:
        self.shadow = shadow
        self.enabled = enabled
        self._limits = (keep_days * 86400, max_total_mb * 1024 * 1024)
        self._pruned = False  # once per session, after its first checkpointed turn
        self._session = _ref_name(session_id)
        self._turn: _Turn | None = None
        self._lock = anyio.Lock()

    # The turn's side: the prompt handler and the tools.

    def begin_turn(self, prompt: str, message_id: str = "") -> None:
        """A turn begins for the user's ``prompt`` (``message_id``: its id, which a rewind
        names); its checkpoint is taken before its first change."""
        self._turn = _Turn(" ".join(prompt.split())[:PROMPT_CHARS], message_id)

    async def before_change(self) -> Checkpoint | None:
        """The turn's checkpoint, taken now if this is its first change; None outside a turn,
        when checkpoints are off, or when it could not be taken (the notice said so)."""
        turn = self._turn
        if turn is None or not self.enabled or turn.failed:
            return None  # the notice was given by the call that failed
        async with self._lock:
            if turn.number is not None:
                return Checkpoint(turn.number)
            try:
                number, snapshot, turn.commit = await self._in_thread(self._take, turn)
            except (ShadowError, OSError) as exc:
                turn.failed = True
                return Checkpoint(None, f"No checkpoint for this turn: {_why(exc)}")
            turn.number, turn.partial = number, snapshot.partial
            return Checkpoint(number, _partial(snapshot, self.shadow))

    async def covers(self, paths: Sequence[str | None]) -> Coverage:
        """Whether this turn's checkpoint keeps each of ``paths`` (relative to the workspace;
        None: known only at run time) as it is now, so that ``/undo`` brings it back; if not,
        why. A few git calls on the named paths, no walk (``coverage``)."""
        turn = self._turn
        if turn is None or turn.number is None:
            return Coverage("there is no checkpoint of this turn to restore it from")
        try:
            return await self._in_thread(coverage, turn.commit, turn.partial, paths)
        except (ShadowError, OSError) as exc:
            return Coverage(f"this turn's checkpoint could not be checked: {_why(exc)}")

    async def end_turn(self, *, hurried: bool = False) -> str | None:
        """Record the workspace as the turn left it; a notice if that failed. ``hurried``: the
        turn was cancelled, so the record gets ``HURRIED_S``, not the whole ``LIMIT_S``, and
        the session's pruning waits for a later turn."""
        turn, self._turn = self._turn, None
        if turn is None or turn.number is None:
            return None
        number = turn.number
        limit = HURRIED_S if hurried else LIMIT_S
        try:
            await self._in_thread(self._record_after, number, turn.commit, limit_s=limit)
            if not self._pruned and not hurried:
                self._pruned = True
                await self._in_thread(self._prune)
        except (ShadowError, OSError) as exc:
            return f"The end of checkpoint {number} was not recorded: {_why(exc)}"
        return None

    # The user's side: /checkpoints, /undo, /restore.

    async def listing(self) -> list[CheckpointInfo]:
        return await self._guarded(self._list)

    async def plan(self, number: int | None) -> RestorePlan:
        """What restoring checkpoint ``number`` (None: the latest) would change."""
        return await self._guarded(self._plan, number)

    async def contents(self, plan: RestorePlan) -> dict[str, bytes]:
        """What the plan's restored files hold, by blob id."""
        ids = sorted({c.target.blob for c in plan.changes if c.target is not None})
        return await self._guarded(ShadowRepository.blobs, ids) if ids else {}

    async def forget_from(self, number: int) -> None:
        """Drop checkpoint ``number`` and every later one (after a restore to it)."""
        await self._guarded(self._forget, number)

    async def copy_from(self, session_id: str) -> None:
        """A forked session starts with its parent's checkpoints (of the same workspace)."""
        if self.shadow.exists():
            await self._guarded(self._copy, session_id)

    async def delete_all(self) -> None:
        await self._guarded(self._forget, -1)

    # Blocking work, in a worker thread.

    def _take(self, shadow: ShadowRepository, turn: _Turn) -> tuple[int, Snapshot, str]:
        with shadow.locked():
            snapshot = shadow.snapshot()  # creates the shadow the first time
            number = max(self._numbers(shadow), default=0) + 1
            meta = {"turn": number, "time": time.time(), "prompt": turn.prompt}
            if turn.message_id:
                meta["message"] = turn.message_id
            commit = shadow.commit(snapshot.tree, None, json.dumps(meta))
            shadow.set_ref(self._ref(number, "before"), commit)
            return number, snapshot, commit

    def _record_after(self, shadow: ShadowRepository, number: int, before: str) -> None:
        with shadow.locked():
            snapshot = shadow.snapshot()
            commit = shadow.commit(snapshot.tree, before, f"after turn {number}")
            shadow.set_ref(self._ref(number, "after"), commit)

    def _prune(self, shadow: ShadowRepository) -> None:
        """Drop checkpoints (of any session of this workspace) older than the age limit, then
        other sessions' oldest, a quarter at a time, while the repository is over its size
        limit. Git's garbage collection runs only when something was dropped."""
        max_age, max_size = self._limits
        with shadow.locked():
            times = shadow.ref_times()
            cutoff = time.time() - max_age
            doomed = [name for name, when in times.items() if when < cutoff]
            for name in doomed:
                del times[name]
            if doomed:
                shadow.delete_refs(doomed)
                shadow.prune()
            own = f"{REF_ROOT}/{self._session}/"
            times = {name: when for name, when in times.items() if not name.startswith(own)}
            while times and shadow.size() > max_size:  # a running session keeps its own
                oldest = sorted(times, key=times.__getitem__)[: max(len(times) // 4, 1)]
                shadow.delete_refs(oldest)
                for name in oldest:
                    del times[name]
                shadow.prune()

    def _list(self, shadow: ShadowRepository) -> list[CheckpointInfo]:
        refs = shadow.refs(f"{self._session}/")
        found: list[CheckpointInfo] = []
        for number in sorted(self._numbers(shadow, refs)):
            before = refs.get(f"{REF_ROOT}/{self._ref(number, 'before')}")
            if before is None:
                continue
            meta = _meta(shadow.message(before))
            after = refs.get(f"{REF_ROOT}/{self._ref(number, 'after')}")
            changed = len(shadow.changed_paths(before, after)) if after else None
            found.append(
                CheckpointInfo(
                    number,
                    meta.get("time", 0.0),
                    meta.get("prompt", ""),
                    changed,
                    str(meta.get("message", "")),
                )
            )
        return found

    def _plan(self, shadow: ShadowRepository, number: int | None) -> RestorePlan:
        with shadow.locked():
            refs = shadow.refs(f"{self._session}/")
            numbers = sorted(
                n
                for n in self._numbers(shadow, refs)
                if f"{REF_ROOT}/{self._ref(n, 'before')}" in refs
            )
            if not numbers:
                raise CheckpointError(
                    "This session has no checkpoints yet: no turn has changed the workspace."
                )
            chosen = numbers[-1] if number is None else number
            if chosen not in numbers:
                listed = ", ".join(str(n) for n in numbers)
                raise CheckpointError(
                    f"There is no checkpoint {chosen}. This session has: {listed}."
                )
            current = shadow.entries(shadow.snapshot().tree)
            turns: list[Turn] = []
            for n in (n for n in numbers if n >= chosen):
                before = shadow.entries(refs[f"{REF_ROOT}/{self._ref(n, 'before')}"])
                after_ref = refs.get(f"{REF_ROOT}/{self._ref(n, 'after')}")
                after = shadow.entries(after_ref) if after_ref else current
                turns.append(Turn(n, before, after))
            return plan_restore(turns, current)

    def _forget(self, shadow: ShadowRepository, first: int) -> None:
        with shadow.locked():
            refs = shadow.refs(f"{self._session}/")
            doomed = [name for name in refs if _number_of(name) >= first]
            shadow.delete_refs(doomed)

    def _copy(self, shadow: ShadowRepository, session_id: str) -> None:
        source = _ref_name(session_id)
        with shadow.locked():
            prefix = f"{REF_ROOT}/{source}/"
            for name, commit in shadow.refs(f"{source}/").items():
                shadow.set_ref(f"{self._session}/{name.removeprefix(prefix)}", commit)

    def _numbers(self, shadow: ShadowRepository, refs: dict[str, str] | None = None) -> set[int]:
        listed = refs if refs is not None else shadow.refs(f"{self._session}/")
        return {_number_of(name) for name in listed}

    def _ref(self, number: int, which: str) -> str:
        return f"{self._session}/{number}/{which}"

    async def _in_thread(self, work: Callable[..., T], *args: Any, limit_s: float = LIMIT_S) -> T:
        """``work(shadow, *args)`` in a worker thread, its git calls under one watch: past
        ``limit_s`` they fail; on a cancel they are killed and this returns at once."""
        watch = self.shadow.watch(limit_s)
        shadow = self.shadow.watched(watch)
        try:
            return await anyio.to_thread.run_sync(
                functools.partial(work, shadow, *args), abandon_on_cancel=True
            )
        except anyio.get_cancelled_exc_class():
            watch.stop()  # the thread's git calls end, and it with them
            raise

    async def _guarded(self, work: Callable[..., T], *args: Any) -> T:
        if not self.shadow.exists():
            raise CheckpointError(
                "This workspace has no checkpoints: none was taken yet, or the checkpoint "
                f"repository ({self.shadow.path}) was deleted."
            )
        try:
            return await self._in_thread(work, *args)
        except ShadowError as exc:
            raise CheckpointError(f"The checkpoints cannot be read: {exc}") from exc
        except OSError as exc:
            raise CheckpointError(f"The checkpoints cannot be read: {_why(exc)}") from exc


def _number_of(ref: str) -> int:
    parts = ref.rsplit("/", 2)
    return int(parts[-2]) if len(parts) == 3 and parts[-2].isdigit() else -1


def _meta(message: str) -> dict[str, Any]:
    try:
        meta = json.loads(message)
    except ValueError:
        return {}
    return meta if isinstance(meta, dict) else {}  # type: ignore[return-value]


def _partial(snapshot: Snapshot, shadow: ShadowRepository) -> str | None:
    said: list[str] = []
    if snapshot.partial:
        said.append(
            f"the workspace has more than {shadow.max_files:,} files; the rest are not covered"
        )
    if snapshot.skipped:
        said.append(
            f"files over {shadow.max_file_size:,} bytes are not covered: {_few(snapshot.skipped)}"
        )
    if snapshot.refused:
        said.append(f"names git will not store are not covered: {_few(snapshot.refused)}")
    return f"This turn's checkpoint is partial: {'; '.join(said)}." if said else None


def _few(paths: tuple[str, ...]) -> str:
    return ", ".join(paths[:5]) + (" ..." if len(paths) > 5 else "")


def _why(exc: Exception) -> str:
    if isinstance(exc, OSError):
        said = exc.strerror or str(exc)
        return f"{said}: {exc.filename}" if exc.filename and exc.strerror else said
    return str(exc)


def _ref_name(session_id: str) -> str:
    """The session's folder under ``refs/heron``: its id, when git accepts it as a name."""
    if SAFE_ID.fullmatch(session_id):
        return session_id
    return hashlib.sha256(session_id.encode()).hexdigest()[:32]
