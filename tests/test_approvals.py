"""The approval policy, rule by rule: one ordered table (safety/policy.py), and the answers
the user is offered and what "always" remembers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_core.approval.permissions import (
    ApprovalRequest,
    Permissions,
    options_for,
)
from agent_core.approval.rules import JsonRuleStore
from agent_core.modes import Mode
from agent_core.safety.paths import hard_linked, protected_reason
from agent_core.safety.policy import (
    EDITS,
    LASTING,
    MEMORY,
    RULES,
    Action,
    Command,
    Edit,
    LeavePlanMode,
    MemoryWrite,
    Script,
    ToolUse,
    Unconfined,
    decide,
    may_remember,
    rule_for,
    situation_of,
)
from tests.support.agents import Recording, no_mode_change

INSIDE = Edit(Path("/w/a.py"), True)
OUTSIDE = Edit(Path("/etc/x"), False)
PROTECTED = Edit(Path("/w/.git/config"), True, protected=".git is protected")
LINKED = Edit(Path("/w/linked.txt"), True, hard_linked=True)
MCP_WRITE = ToolUse("mcp__db__insert", "db: insert")
MCP_READ = ToolUse("mcp__db__query", "db: query", read_only=True)
RERUN = Unconfined("npm install -g x", "it wrote outside the workspace")
REMEMBER = MemoryWrite("user.md")
# A file emptied in place: /undo restores it only when the turn's checkpoint keeps it.
EMPTIED = Command(": > notes.md")
EMPTIED_KEPT = Command(": > notes.md", checkpointed=True)
NOT_KEPT = "build/cache.db is ignored (.gitignore), and checkpoints leave ignored files out"
EMPTIED_NOT_KEPT = Command(": > build/cache.db", not_kept=NOT_KEPT)
MODES: tuple[Mode, ...] = ("ask", "accept-edits", "plan", "full-access")

CASES: list[tuple[Mode, Action, str]] = [
    ("ask", LeavePlanMode(), "ask"),
    ("plan", LeavePlanMode(), "ask"),
    # Plan mode refuses every change first, whatever else is true of it.
    ("plan", INSIDE, "deny"),
    ("plan", OUTSIDE, "deny"),
    ("plan", PROTECTED, "deny"),
    ("plan", LINKED, "deny"),
    ("plan", Command("pytest"), "deny"),
    ("plan", Command("rm -rf x"), "deny"),
    ("plan", Command("curl x | sh"), "deny"),
    ("plan", Script(), "deny"),
    ("plan", MCP_WRITE, "deny"),
    ("plan", RERUN, "deny"),
    ("plan", Command("git status"), "allow"),  # read-only, in a read-only sandbox
    ("plan", MCP_READ, "ask"),
    # Running outside the sandbox always asks.
    ("full-access", RERUN, "ask"),
    ("ask", RERUN, "ask"),
    # Protected paths, outside the roots, hard links, dangerous commands: ask in every mode.
    ("full-access", PROTECTED, "ask"),
    ("accept-edits", PROTECTED, "ask"),
    ("full-access", OUTSIDE, "ask"),
    ("accept-edits", OUTSIDE, "ask"),
    ("full-access", LINKED, "ask"),
    ("full-access", Command("rm -rf x"), "ask"),
    ("full-access", Command("$(echo rm) x"), "ask"),
    ("ask", Command("git status; rm -rf ~"), "ask"),
    ("full-access", EMPTIED, "ask"),  # no checkpoint of this turn to restore it from
    ("full-access", EMPTIED_NOT_KEPT, "ask"),  # a checkpoint, but it does not keep the file
    # Then the modes.
    ("ask", INSIDE, "ask"),
    ("accept-edits", INSIDE, "allow"),
    ("full-access", INSIDE, "allow"),
    ("ask", Command("pytest"), "ask"),
    ("accept-edits", Command("pytest"), "ask"),
    ("full-access", Command("pytest"), "allow"),
    ("full-access", EMPTIED_KEPT, "allow"),  # the checkpoint keeps it: /undo brings it back
    ("ask", EMPTIED_KEPT, "ask"),
    ("ask", Command("git status"), "allow"),  # read-only commands run in ask mode
    ("ask", Command("cat README.md | grep x"), "allow"),
    ("ask", MCP_WRITE, "ask"),
    ("accept-edits", MCP_WRITE, "ask"),
    ("full-access", MCP_WRITE, "allow"),
    ("ask", Script(), "ask"),
    ("accept-edits", Script(), "ask"),
    ("full-access", Script(), "allow"),
    # Memory outlives the session: it asks in plan mode (which never writes it unasked), in
    # ask mode, and in accept-edits (it is no workspace file); full access writes it.
    ("plan", REMEMBER, "ask"),
    ("ask", REMEMBER, "ask"),
    ("accept-edits", REMEMBER, "ask"),
    ("full-access", REMEMBER, "allow"),
]


@pytest.mark.parametrize(("mode", "action", "verdict"), CASES)
def test_policy(mode: Mode, action: Action, verdict: str) -> None:
    assert decide(mode, action)[0] == verdict


def test_every_rule_of_the_table_is_exercised() -> None:
    hit = {rule_for(situation_of(m, a, frozenset(), frozenset(), True))[0] for m, a, _ in CASES}
    hit.add(rule_for(situation_of("ask", INSIDE, frozenset(), frozenset({EDITS}), True))[0])
    hit.add(rule_for(situation_of("ask", Command("x"), frozenset({"x"}), frozenset(), True))[0])
    hit.add(rule_for(situation_of("ask", Command("x"), frozenset(), frozenset(), False))[0])
    assert hit == {name for name, *_ in RULES}


@pytest.mark.parametrize("mode", MODES)
def test_memory_writes_always_allowed_here_run_except_in_plan_mode(mode: Mode) -> None:
    always = frozenset({MEMORY})
    if mode == "plan":
        assert decide(mode, REMEMBER, allowed=always) == ("ask", LASTING)
        situation = situation_of(mode, REMEMBER, always, frozenset(), True)
        assert not may_remember(situation)  # "always" would not hold here: not offered
    else:
        assert decide(mode, REMEMBER, allowed=always) == ("allow", None)
    rejected = decide(mode, REMEMBER, rejected=always)
    assert rejected == ("deny", "the user always rejects memory writes here")
    if mode != "full-access":
        assert decide(mode, REMEMBER) == ("ask", LASTING)  # the question says why
    assert decide(mode, REMEMBER, allowed=frozenset({"pytest"}))[0] == decide(mode, REMEMBER)[0]


@pytest.mark.parametrize("mode", MODES)
def test_without_a_sandbox_commands_and_scripts_ask_unless_plan_refuses_them(mode: Mode) -> None:
    for action in (Command("pytest"), Command("git status"), Script()):
        verdict, reason = decide(mode, action, allowed=frozenset({"pytest"}), sandboxed=False)
        if mode == "plan" and action != Command("git status"):
            assert verdict == "deny"
        else:
            assert (verdict, reason) == ("ask", "there is no sandbox here, so commands ask first")
    assert decide(mode, INSIDE, sandboxed=False) == decide(mode, INSIDE)  # edits: no change


@pytest.mark.parametrize("mode", MODES)
def test_protected_paths_ask_in_every_mode_even_when_edits_are_always_allowed(mode: Mode) -> None:
    verdict, reason = decide(mode, PROTECTED)
    if mode == "plan":
        assert verdict == "deny"
    else:
        assert (verdict, reason) == ("ask", PROTECTED.protected)


def test_emptying_a_file_the_checkpoint_does_not_keep_asks_saying_why() -> None:
    verdict, reason = decide("full-access", EMPTIED_NOT_KEPT)
    assert verdict == "ask" and reason is not None
    assert reason.startswith("it empties build/cache.db") and reason.endswith(NOT_KEPT)
    assert decide("full-access", EMPTIED)[1] == (
        "it empties notes.md (writes nothing over it), with no checkpoint of this turn to "
        "restore it from"
    )
    always = frozenset({":"})
    assert decide("ask", EMPTIED_NOT_KEPT, allowed=always) == (verdict, reason)
    assert decide("ask", EMPTIED_KEPT, allowed=always) == ("allow", None)


def test_remembered_rejections_refuse_before_anything_asks() -> None:
    assert decide("ask", INSIDE, rejected=frozenset({EDITS})) == (
        "deny",
        "the user rejected edits for the rest of this session",
    )
    assert decide("full-access", MCP_WRITE, rejected=frozenset({MCP_WRITE.tool}))[0] == "deny"
    assert decide("ask", MCP_WRITE, allowed=frozenset({MCP_WRITE.tool}))[0] == "allow"
    assert decide("plan", MCP_WRITE, allowed=frozenset({MCP_WRITE.tool}))[0] == "deny"


def test_options_offer_always_only_where_it_can_be_kept() -> None:
    assert [o.name for o in options_for(Command("git push origin x"))][1] == (
        "Always allow `git push` here"
    )
    assert [o.name for o in options_for(Command("pytest && npm test"))][1] == (
        "Always allow `pytest`, `npm test` here"
    )
    assert [o.kind for o in options_for(Command("rm -rf x"))] == ["allow_once", "reject_once"]
    assert [o.kind for o in options_for(Script())] == ["allow_once", "reject_once"]
    assert [o.kind for o in options_for(RERUN)] == ["allow_once", "reject_once"]
    assert options_for(INSIDE)[1].name == "Allow all edits this session"
    assert options_for(MCP_WRITE)[1].name == "Always allow db: insert here"
    assert [o.name for o in options_for(REMEMBER)] == [
        "Allow",
        "Always allow memory writes here",
        "Reject",
        "Always reject memory writes here",
    ]
    assert len(options_for(INSIDE, always=False)) == 2


@pytest.mark.anyio
async def test_questions_carry_their_reason_and_the_fitting_answers(tmp_path: Path) -> None:
    user = Recording("allow_once")
    rules = JsonRuleStore(tmp_path / "permissions.json", Path("/w"))
    permissions = Permissions("full-access", user, rules, no_mode_change)
    assert await permissions.check(PROTECTED, ApprovalRequest("c", "Edit", "edit")) is None
    (asked,) = user.asked
    assert [o.kind for o in asked.options] == ["allow_once", "reject_once"]
    assert "Asking because .git is protected." in [getattr(c, "text", "") for c in asked.content]


@pytest.mark.anyio
async def test_always_allow_remembers_each_parsed_prefix(tmp_path: Path) -> None:
    user = Recording("allow_always")
    rules = JsonRuleStore(tmp_path / "permissions.json", Path("/w"))
    permissions = Permissions("ask", user, rules, no_mode_change)
    await permissions.check(
        Command("pytest -q && npm test"), ApprovalRequest("c", "Run", "execute")
    )
    assert rules.allowed() == {"pytest", "npm test"}
    assert (
        await permissions.check(Command("npm test"), ApprovalRequest("d", "Run", "execute")) is None
    )
    assert len(user.asked) == 1


def test_rules_persist_per_workspace(tmp_path: Path) -> None:
    file = tmp_path / "permissions.json"
    JsonRuleStore(file, Path("/w/one")).remember("pytest", allow=True)
    JsonRuleStore(file, Path("/w/one")).remember("git push", allow=False)
    assert JsonRuleStore(file, Path("/w/one")).allowed() == {"pytest"}
    assert JsonRuleStore(file, Path("/w/one")).rejected() == {"git push"}
    assert JsonRuleStore(file, Path("/w/two")).allowed() == set()
    JsonRuleStore(file, Path("/w/one")).remember("pytest", allow=False)  # changing one's mind
    assert JsonRuleStore(file, Path("/w/one")).allowed() == set()


def test_mcp_tools_are_remembered_by_name_apart_from_commands(tmp_path: Path) -> None:
    file = tmp_path / "permissions.json"
    JsonRuleStore(file, Path("/w")).remember("mcp__db__insert", allow=True, category="tools")
    JsonRuleStore(file, Path("/w")).remember("mcp__db__insert", allow=True)
    JsonRuleStore(file, Path("/w")).remember("mcp__db__insert", allow=False)
    assert JsonRuleStore(file, Path("/w")).allowed("tools") == {"mcp__db__insert"}
    assert JsonRuleStore(file, Path("/w")).allowed() == set()


@pytest.mark.parametrize(
    "relative",
    [
        ".git/config",
        ".git/hooks/pre-commit",
        "sub/.git/config",
        ".gitmodules",
        ".heron/commands/x.md",
        ".vscode/tasks.json",
        ".idea/workspace.xml",
        ".zed/settings.json",
        ".envrc",
        ".env",
        ".env.local",
        ".VSCode/tasks.json",
    ],
)
def test_protected_paths(relative: str) -> None:
    assert protected_reason(Path("/w") / relative, (Path("/w"),), Path("/home/u"))


@pytest.mark.parametrize(
    "relative", ["src/app.py", ".gitignore", ".github/workflows/ci.yml", "env.py"]
)
def test_ordinary_paths(relative: str) -> None:
    assert protected_reason(Path("/w") / relative, (Path("/w"),), Path("/home/u")) is None


def test_shell_start_up_files_are_protected_when_the_home_is_the_workspace() -> None:
    home = Path("/home/u")
    assert protected_reason(home / ".bashrc", (home,), home)
    assert protected_reason(home / ".config/fish/config.fish", (home,), home)


def test_a_file_with_another_hard_link_is_told_apart(tmp_path: Path) -> None:
    alone, linked = tmp_path / "alone.txt", tmp_path / "linked.txt"
    alone.write_text("a")
    linked.write_text("b")
    os.link(linked, tmp_path / "elsewhere.txt")
    assert not hard_linked(alone) and hard_linked(linked)
    assert not hard_linked(tmp_path / "missing.txt")


@pytest.mark.anyio
async def test_always_allowing_memory_is_kept_for_the_workspace_and_not_in_plan_mode(
    tmp_path: Path,
) -> None:
    file = tmp_path / "permissions.json"
    user = Recording("allow_always")
    permissions = Permissions("ask", user, JsonRuleStore(file, Path("/w")), no_mode_change)
    assert await permissions.check(REMEMBER, ApprovalRequest("c", "Add", "edit")) is None
    assert JsonRuleStore(file, Path("/w")).allowed("memory") == {MEMORY}
    assert JsonRuleStore(file, Path("/w")).allowed("tools") == set()
    assert JsonRuleStore(file, Path("/w/other")).allowed("memory") == set()
    later = Permissions("accept-edits", user, JsonRuleStore(file, Path("/w")), no_mode_change)
    assert await later.check(REMEMBER, ApprovalRequest("d", "Add", "edit")) is None
    assert len(user.asked) == 1  # asked once, in the first session
    planning = Permissions("plan", user, JsonRuleStore(file, Path("/w")), no_mode_change)
    assert await planning.check(REMEMBER, ApprovalRequest("e", "Add", "edit")) is None
    (*_, asked) = user.asked
    assert [o.kind for o in asked.options] == ["allow_once", "reject_once"]
    assert f"Asking because {LASTING}." in [getattr(c, "text", "") for c in asked.content]


@pytest.mark.anyio
async def test_rejecting_memory_for_good_refuses_it_in_every_mode(tmp_path: Path) -> None:
    file = tmp_path / "permissions.json"
    user = Recording("reject_always")
    permissions = Permissions("ask", user, JsonRuleStore(file, Path("/w")), no_mode_change)
    refusal = await permissions.check(REMEMBER, ApprovalRequest("c", "Add", "edit"))
    assert refusal == "The user rejected this memory write."
    for mode in MODES:
        later = Permissions(mode, user, JsonRuleStore(file, Path("/w")), no_mode_change)
        refusal = await later.check(REMEMBER, ApprovalRequest("d", "Add", "edit"))
        assert refusal == "Refused: the user always rejects memory writes here."
    assert len(user.asked) == 1
