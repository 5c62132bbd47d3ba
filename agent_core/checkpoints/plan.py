"""What a restore will do, worked out from the snapshots alone (pure: no git, no disk).

A restore to checkpoint *k* undoes the agent's turns *k*, *k+1*, ... up to the last: every
file one of those turns changed goes back to what it was before turn *k*. A file the user
changed between turns, and the agent never touched, is left as it is. A file that did not
exist before turn *k* is deleted only when the agent created it and nobody changed it since;
otherwise it is kept, and the plan says why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from msgspec import Struct

from agent_core.checkpoints.shadow import Entry

NESTED_REPOSITORY = "160000"

Tree = Mapping[str, Entry]  # relative path -> mode and blob


class Turn(Struct, frozen=True):
    """A checkpointed turn: the workspace before its first change, and after its end (for a
    turn that never ended, because Heron stopped, the workspace as it is now)."""

    number: int
    before: Tree
    after: Tree


class Change(Struct, frozen=True):
    path: str
    action: Literal["restore", "recreate", "delete"]
    target: Entry | None  # what the file becomes; None when it is deleted
    current: Entry | None  # what it is now; None when it is missing


class Kept(Struct, frozen=True):
    path: str
    reason: str


class RestorePlan(Struct, frozen=True):
    checkpoint: int
    changes: tuple[Change, ...]
    kept: tuple[Kept, ...] = ()


def plan_restore(turns: Sequence[Turn], current: Tree) -> RestorePlan:
    """Back to before ``turns[0]``; ``turns`` run from that checkpoint to the latest."""
    target = turns[0].before
    last_written: dict[str, Entry | None] = {}  # path -> what the agent's last turn left
    created: set[str] = set()
    for turn in turns:
        for path in turn.before.keys() | turn.after.keys():
            before, after = turn.before.get(path), turn.after.get(path)
            if before != after:
                last_written[path] = after
                if before is None:
                    created.add(path)
    changes: list[Change] = []
    kept: list[Kept] = []
    for path in sorted(last_written):
        want, now = target.get(path), current.get(path)
        if want == now or NESTED_REPOSITORY in (_mode(want), _mode(now)):
            continue
        if want is not None:
            changes.append(Change(path, "restore" if now else "recreate", want, now))
        elif path not in created:
            kept.append(Kept(path, "created after the checkpoint, not by the agent"))
        elif now != last_written[path]:
            kept.append(Kept(path, "changed since the agent wrote it"))
        else:
            changes.append(Change(path, "delete", None, now))
    return RestorePlan(turns[0].number, tuple(changes), tuple(kept))


def _mode(entry: Entry | None) -> str | None:
    return entry.mode if entry else None
