"""The approval gate: every action a tool takes passes here once, before the tool does it.

``admit`` judges the action once (a command's judgement is passed along, never made again),
applies the ordered approval table (``safety.policy``, through ``Permissions``), asks the user
when the table says so and remembers "always" answers, and takes the turn's checkpoint when the
action may change the workspace (``policy.changes_workspace``), so that ``/undo`` restores
what it does. A refusal is reported on the call (``ToolCallUpdated.refused``: an editor, or
``heron exec``, sees the call was refused, not that it failed) and raised as the ``ToolError``
the model reads; a cancelled question raises ``ApprovalCancelled``, which ends the turn.

A command that empties files in place runs unasked only when the turn's checkpoint keeps those
files: for one, the checkpoint is taken before the question, not after, and asked about them.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Protocol

import anyio
from msgspec.structs import replace

from agent_core.errors import ToolError
from agent_core.events import Event, NoticeRaised, ToolCallUpdated
from agent_core.safety.policy import Command, changes_workspace

if TYPE_CHECKING:
    from agent_core.approval.permissions import ApprovalRequest, Permissions
    from agent_core.checkpoints.coverage import Coverage
    from agent_core.checkpoints.session import Checkpoint
    from agent_core.safety.findings import Judgement
    from agent_core.safety.policy import Action

# The command judge: the bash grammar and the rule tables, ~30 ms and ~1.5 MB to load. No model
# request needs it, so it loads when the model begins a command (``begin_loading_judge``), and
# a session that never runs one never loads it.
JUDGE = "agent_core.safety.judge"
_judge: list[Callable[[str], Judgement]] = []  # the judge, once loaded
_loading = threading.Lock()


class Checkpointer(Protocol):
    """The session's checkpoints, as the gate takes them."""

    async def before_change(self) -> Checkpoint | None: ...

    async def covers(self, paths: Sequence[str | None]) -> Coverage: ...


class Call(Protocol):
    """What the gate needs of a tool call (``tools.base.ToolContext`` is one)."""

    @property
    def call_id(self) -> str: ...
    @property
    def permissions(self) -> Permissions: ...
    @property
    def checkpoints(self) -> Checkpointer | None: ...
    @property
    def report(self) -> Callable[[Event], Awaitable[None]]: ...


async def admit(context: Call, action: Action, request: ApprovalRequest) -> None:
    """Returns when ``action`` may go ahead (its checkpoint taken, when it changes the
    workspace); raises ``ToolError`` with the refusal the model should read when it may not."""
    permissions = context.permissions
    judgement = await judged(action.command) if isinstance(action, Command) else None
    taken = False
    if judgement is not None and judgement.emptied and permissions.mode != "plan":
        taken = await before_change(context)
        not_kept = await not_restorable(context, judgement.emptied_files) if taken else None
        action = replace(action, checkpointed=taken and not_kept is None, not_kept=not_kept)
    situation = permissions.situation(action, judgement)
    if refusal := await permissions.decide(situation, request):
        await context.report(ToolCallUpdated(context.call_id, refused=refusal))
        raise ToolError(refusal)
    if not taken and changes_workspace(situation):
        await before_change(context)


async def judged(command: str) -> Judgement:
    """``command`` judged. The judge is taken from a worker thread the first time: there it
    loads, or its load under way is waited for, while the event loop answers other requests."""
    judge = _judge[0] if _judge else await anyio.to_thread.run_sync(load_judge)
    return judge(command)


def begin_loading_judge() -> None:
    """Load the judge in a thread of its own, unless it is loaded or loading: called when the
    model begins a command, so that judging it, once its arguments have streamed, finds the
    judge ready."""
    if not _judge and not _loading.locked():
        threading.Thread(target=load_judge, name="load the command judge", daemon=True).start()


def load_judge() -> Callable[[str], Judgement]:
    """The judge, loaded with the bash grammar it parses commands with the first time (this
    blocks: off the event loop); a caller meanwhile waits for that load."""
    with _loading:
        if not _judge:
            module = importlib.import_module(JUDGE)
            from agent_core.safety import shell

            shell.warm_up()
            _judge.append(module.judge)
        return _judge[0]


async def before_change(context: Call) -> bool:
    """Right before the workspace changes: the turn's checkpoint is taken (the first time) and
    the call's update names it, so an editor can offer "restore to here". True when the turn
    has its checkpoint (so /undo restores what the change does)."""
    if context.checkpoints is None or (taken := await context.checkpoints.before_change()) is None:
        return False
    if taken.notice:
        await context.report(NoticeRaised("warning", "Checkpoint", taken.notice))
    if taken.number is not None:
        await context.report(ToolCallUpdated(context.call_id, checkpoint=taken.number))
    return taken.number is not None


async def not_restorable(context: Call, files: Sequence[str | None]) -> str | None:
    """After ``before_change`` took the turn's checkpoint, before a command empties ``files``
    in place (None: one it does not name): why the checkpoint does not keep one of them as it
    is now (so ``/undo`` could not bring it back), or None when it keeps them all."""
    if context.checkpoints is None:
        return "checkpoints are off"
    return (await context.checkpoints.covers(files)).why_not
