"""The approval gate (agent_core/approval/gate.py): one call per action judges it once, applies the
approval table, asks when the table says so, and takes the turn's checkpoint when the action
may change the workspace (``policy.changes_workspace``)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from agent_core.approval.gate import admit
from agent_core.approval.permissions import ApprovalRequest, Permissions
from agent_core.approval.rules import JsonRuleStore
from agent_core.checkpoints.coverage import Coverage
from agent_core.checkpoints.session import Checkpoint
from agent_core.errors import ToolError
from agent_core.events import Event, ToolCallUpdated
from agent_core.modes import Mode
from agent_core.ports.runner import LocalRunner
from agent_core.safety.findings import Judgement
from agent_core.safety.judge import judge
from agent_core.safety.policy import (
    Action,
    Command,
    Edit,
    MemoryWrite,
    Script,
    ToolUse,
    Unconfined,
    WebAccess,
    changes_workspace,
    situation_of,
)
from agent_core.tools.base import ToolContext
from tests.support.agents import NoWorkspace, Recording, no_mode_change
from tests.support.sandbox import no_sandbox

pytestmark = pytest.mark.anyio


class Turn:
    """A turn's checkpoints: taken once, keeping (or not) the files a command empties."""

    def __init__(self, why_not: str | None = None) -> None:
        self.taken = 0
        self.why_not = why_not

    async def before_change(self) -> Checkpoint | None:
        self.taken += 1
        return Checkpoint(1)

    async def covers(self, paths: Sequence[str | None]) -> Coverage:
        return Coverage(self.why_not)


def _context(
    tmp_path: Path, mode: Mode, user: Recording, turn: Turn, events: list[Event]
) -> ToolContext:
    async def report(event: Event) -> None:
        events.append(event)

    rules = JsonRuleStore(tmp_path / "permissions.json", tmp_path)
    permissions = Permissions(mode, user, rules, no_mode_change)
    sandbox = no_sandbox((tmp_path,))
    return ToolContext(
        "c", NoWorkspace(tmp_path), permissions, report, LocalRunner({}), sandbox, checkpoints=turn
    )


def _checkpointed(events: list[Event]) -> list[int | None]:
    return [e.checkpoint for e in events if isinstance(e, ToolCallUpdated) and e.checkpoint]


@pytest.mark.parametrize(
    ("action", "changes"),
    [
        (Edit(Path("/w/a.py"), True), True),
        (Edit(Path("/etc/x"), False), False),  # outside: no checkpoint covers it
        (Command("pytest -q > log.txt"), True),
        (Command("ls"), False),
        (Script(), True),
        (ToolUse("mcp__db__insert", "db: insert"), True),
        (ToolUse("mcp__db__query", "db: query", read_only=True), False),
        (WebAccess("docs.python.org", "docs.python.org"), False),
        (MemoryWrite("notes.md"), False),  # not a workspace file
        (Unconfined("npm i -g x", "it wrote outside"), False),  # its first run was the change
    ],
)
def test_what_changes_the_workspace(action: Action, changes: bool) -> None:
    situation = situation_of("full-access", action, frozenset(), frozenset(), True)
    assert changes_workspace(situation) is changes


async def test_an_allowed_change_is_checkpointed_once_the_user_allows_it(tmp_path: Path) -> None:
    user, turn, events = Recording("allow_once"), Turn(), list[Event]()
    context = _context(tmp_path, "ask", user, turn, events)
    await admit(context, Edit(tmp_path / "a.py", True), ApprovalRequest("c", "Edit", "edit"))
    assert len(user.asked) == 1
    assert turn.taken == 1
    assert _checkpointed(events) == [1]


async def test_a_refusal_is_the_tool_error_and_takes_no_checkpoint(tmp_path: Path) -> None:
    user, turn, events = Recording("reject_once"), Turn(), list[Event]()
    context = _context(tmp_path, "ask", user, turn, events)
    with pytest.raises(ToolError, match="The user rejected this command"):
        await admit(context, Command("touch x"), ApprovalRequest("c", "Run", "execute"))
    assert turn.taken == 0


async def test_reads_web_requests_and_memory_take_no_checkpoint(tmp_path: Path) -> None:
    user, turn, events = Recording("allow_once"), Turn(), list[Event]()
    context = _context(tmp_path, "full-access", user, turn, events)
    for action in (Command("ls"), WebAccess("x.org", "x.org"), MemoryWrite("notes.md")):
        await admit(context, action, ApprovalRequest("c", "Do", "other"))
    assert turn.taken == 0 and not _checkpointed(events)


async def test_plan_mode_refuses_a_change_before_any_checkpoint(tmp_path: Path) -> None:
    user, turn, events = Recording("allow_once"), Turn(), list[Event]()
    context = _context(tmp_path, "plan", user, turn, events)
    with pytest.raises(ToolError, match="plan mode is read-only"):
        await admit(context, Command(": > notes.md"), ApprovalRequest("c", "Run", "execute"))
    assert turn.taken == 0 and not user.asked


async def test_emptying_a_file_the_checkpoint_keeps_runs_unasked(tmp_path: Path) -> None:
    user, turn, events = Recording("reject_once"), Turn(), list[Event]()
    context = _context(tmp_path, "full-access", user, turn, events)
    await admit(context, Command(": > notes.md"), ApprovalRequest("c", "Run", "execute"))
    assert not user.asked
    assert turn.taken == 1  # before the decision, and not again after it


async def test_emptying_a_file_the_checkpoint_does_not_keep_asks_saying_why(
    tmp_path: Path,
) -> None:
    user, turn, events = Recording("allow_once"), Turn("it is ignored"), list[Event]()
    context = _context(tmp_path, "full-access", user, turn, events)
    await admit(context, Command(": > notes.md"), ApprovalRequest("c", "Run", "execute"))
    (asked,) = user.asked
    said = " ".join(getattr(c, "text", "") for c in asked.content)
    assert "this turn's checkpoint cannot restore it: it is ignored" in said
    assert turn.taken == 1


async def test_a_judgement_given_is_used_not_made_again(tmp_path: Path) -> None:
    user = Recording("allow_always")
    rules = JsonRuleStore(tmp_path / "permissions.json", tmp_path)
    permissions = Permissions("ask", user, rules, no_mode_change)
    given = Judgement(read_only=False, prefixes=("make deploy",))  # not what `x` would give
    situation = permissions.situation(Command("x"), given)
    assert situation.prefixes == ("make deploy",)
    assert await permissions.decide(situation, ApprovalRequest("c", "Run", "execute")) is None
    (asked,) = user.asked
    assert asked.options[1].name == "Always allow `make deploy` here"
    assert rules.allowed() == {"make deploy"}
    assert judge("x").prefixes != given.prefixes


def test_a_command_judged_before_the_judge_loaded_loads_it_off_the_event_loop() -> None:
    """A command judged before its judge loaded (none was begun: a command the model did not
    stream, or whose load has not ended) is judged as any other; the judge loads in a worker
    thread, not on the event loop."""
    code = """
import sys, threading, anyio
from agent_core.approval.gate import JUDGE, judged
class Watch:  # notes the thread that looks for the judge, and leaves the finding to the others
    def find_spec(self, name, path=None, target=None):
        if name == JUDGE:
            print("main thread" if threading.current_thread() is threading.main_thread() else "worker")
sys.meta_path.insert(0, Watch())
print(JUDGE in sys.modules)
print(anyio.run(judged, "git push").prefixes, anyio.run(judged, "ls -la").read_only)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["False", "worker", "('git push',) True"]


def test_a_judge_begun_ahead_loads_once_with_its_grammar_and_judging_uses_it() -> None:
    """``begin_loading_judge`` (the model began a command) loads the judge and builds the bash
    grammar in a thread of its own, once however often it is called; judging then imports
    nothing more."""
    code = """
import sys, threading, anyio
from agent_core.approval.gate import JUDGE, begin_loading_judge, judged
begin_loading_judge()
begin_loading_judge()
for thread in threading.enumerate():
    if thread.name == "load the command judge":
        thread.join()
print(JUDGE in sys.modules, "tree_sitter_bash" in sys.modules)
class Watch:  # what judging would import of the judge's own
    def find_spec(self, name, path=None, target=None):
        if name.startswith(("agent_core.safety", "tree_sitter")):
            print("imported", name)
sys.meta_path.insert(0, Watch())
begin_loading_judge()
print(anyio.run(judged, "git push").prefixes, [t.name for t in threading.enumerate()])
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["True True", "('git push',) ['MainThread']"]
