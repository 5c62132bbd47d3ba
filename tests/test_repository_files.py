"""Every file Heron reads on its own from a workspace goes through the one safe-open helper: a
link out of the workspace (or the repository, or a skill's folder), a FIFO or a device is left
out with the reason, and never read, never waited on."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from acp_server.bridge.linked import read_linked
from agent_core.checkpoints.plan import Change, RestorePlan
from agent_core.checkpoints.restore import preview
from agent_core.checkpoints.shadow import Entry
from agent_core.context.commands import find_commands
from agent_core.context.files import find_context_files, user_context_files
from agent_core.errors import ToolError
from agent_core.events import DiffContent, TextContent
from agent_core.safety.paths import protected_in
from agent_core.skills.catalog import Skill, files_beside, find_skills, load_file
from agent_core.skills.settings import SkillSettings, skill_folders

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- sk-live-SECRET-TEXT"


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A secret beside the repository, as ``~/.ssh/id_rsa`` is."""
    path = tmp_path / "id_rsa"
    path.write_text(SECRET)
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    (path / ".git").mkdir(parents=True)
    return path


def test_context_files_that_lead_out_of_the_repository_are_left_out(
    repo: Path, secret: Path
) -> None:
    (repo / "docs").mkdir()
    (repo / "docs" / "rules.md").write_text("INSIDE-RULES")
    (repo / "AGENTS.md").symlink_to(secret)
    (repo / "HERON.md").symlink_to("docs/rules.md")  # a link inside is followed
    (repo / "CLAUDE.md").symlink_to("/proc/self/environ")
    os.mkfifo(repo / ".cursorrules")
    (repo / ".github").symlink_to(secret.parent)  # a folder leading out
    (secret.parent / "copilot-instructions.md").write_text(SECRET)
    found = {f.path.name: f for f in find_context_files(repo)}
    assert found["HERON.md"].text == "INSIDE-RULES" and found["HERON.md"].blocked is None
    for name in ("AGENTS.md", "CLAUDE.md", "copilot-instructions.md"):
        assert found[name].text == "" and "outside the repository" in str(found[name].blocked)
    assert found["AGENTS.md"].blocked == f"it lies outside the repository (it leads to {secret})"
    assert found[".cursorrules"].blocked == "it is a named pipe (FIFO), not a regular file"


def test_a_parent_folder_s_file_is_confined_to_the_repository_root(
    repo: Path, secret: Path
) -> None:
    package = repo / "packages" / "app"
    package.mkdir(parents=True)
    (repo / "AGENTS.md").symlink_to(secret)
    (repo / "CLAUDE.md").write_text("ROOT-RULES")
    (package / "HERON.md").symlink_to("../../CLAUDE.md")  # up to the root, still inside
    found = {f.path.relative_to(repo).as_posix(): f for f in find_context_files(package)}
    assert "outside the repository" in str(found["AGENTS.md"].blocked)
    assert found["CLAUDE.md"].text == "ROOT-RULES"
    assert found["packages/app/HERON.md"].text == "ROOT-RULES"


def test_outside_a_repository_the_workspace_is_the_root(tmp_path: Path, secret: Path) -> None:
    workspace = tmp_path / "plain"
    workspace.mkdir()
    (workspace / "AGENTS.md").symlink_to(secret)
    [found] = find_context_files(workspace)
    assert str(found.blocked).startswith("it lies outside the workspace")


def test_a_huge_context_file_is_read_no_further_than_its_cap(repo: Path) -> None:
    (repo / "AGENTS.md").write_bytes(b"rule. " * 1_000_000)
    [found] = find_context_files(repo)
    assert found.text.endswith("[AGENTS.md cut at 20,000 characters]")


def test_the_user_s_own_instructions_follow_the_user_s_links(tmp_path: Path) -> None:
    dotfiles, home = tmp_path / "dotfiles", tmp_path / "heron"
    dotfiles.mkdir()
    home.mkdir()
    (dotfiles / "AGENTS.md").write_text("MY-RULES")
    (home / "AGENTS.md").symlink_to(dotfiles / "AGENTS.md")
    os.mkfifo(dotfiles / "CLAUDE.md")
    (home / "CLAUDE.md").symlink_to(dotfiles / "CLAUDE.md")
    found = user_context_files([home / "AGENTS.md", home / "CLAUDE.md", home / "absent.md"])
    assert [f.text for f in found] == ["MY-RULES", ""]
    assert found[1].blocked == "it is a named pipe (FIFO), not a regular file"


def test_command_templates_that_lead_outside_or_block_are_left_out(
    tmp_path: Path, repo: Path, secret: Path
) -> None:
    commands = repo / ".heron" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("description: Review\nReview $ARGUMENTS.\n")
    (commands / "deploy.md").symlink_to(secret)
    (commands / "env.md").symlink_to("/proc/self/environ")
    os.mkfifo(commands / "hang.md")
    (commands / "latin1.md").write_bytes(b"caf\xe9\n")
    (commands / "big.md").write_bytes(b"x" * (256 * 1024 + 1))
    (commands / "folder.md").mkdir()
    found = find_commands(repo, tmp_path / "home")
    assert found.commands["review"].template == "Review $ARGUMENTS."
    assert not {"deploy", "env", "hang", "latin1", "big", "folder"} & found.commands.keys()
    reasons = {p.name: why for p, why in found.left_out}
    assert reasons["deploy.md"] == f"it lies outside the workspace (it leads to {secret})"
    assert reasons["env.md"].startswith("it lies outside the workspace")
    assert reasons["hang.md"] == "it is a named pipe (FIFO), not a regular file"
    assert reasons["latin1.md"] == "it is not UTF-8 text"
    assert reasons["big.md"] == "it is over 262,144 bytes"
    assert reasons["folder.md"] == "it is a folder, not a regular file"
    assert SECRET not in repr(found)


def test_a_commands_folder_that_leads_outside_is_not_listed(
    tmp_path: Path, repo: Path, secret: Path
) -> None:
    (secret.parent / "deploy.md").write_text(SECRET)
    (repo / ".heron").mkdir()
    (repo / ".heron" / "commands").symlink_to(secret.parent)
    found = find_commands(repo, tmp_path / "home")
    assert "deploy" not in found.commands
    [(path, why)] = found.left_out
    assert path == repo / ".heron" / "commands" and why.startswith("it lies outside the workspace")


def test_the_user_s_commands_follow_the_user_s_links(tmp_path: Path, repo: Path) -> None:
    dotfiles, home = tmp_path / "dotfiles", tmp_path / "home"
    (dotfiles / "commands").mkdir(parents=True)
    home.mkdir()
    (dotfiles / "commands" / "standup.md").write_text("Summarise the day.\n")
    os.mkfifo(dotfiles / "commands" / "hang.md")
    (home / "commands").symlink_to(dotfiles / "commands")
    found = find_commands(repo, home)
    assert found.commands["standup"].template == "Summarise the day."
    assert [(p.name, why) for p, why in found.left_out] == [
        ("hang.md", "it is a named pipe (FIFO), not a regular file")
    ]


def write_skill(folder: Path, name: str) -> Path:
    (folder / name).mkdir(parents=True)
    path = folder / name / "SKILL.md"
    path.write_text(f"---\nname: {name}\ndescription: Does {name}.\n---\nSteps for {name}.\n")
    return path


def skills_of(repo: Path, home: Path) -> tuple[list[str], dict[str, str]]:
    catalog = find_skills(skill_folders(SkillSettings(), repo, home, home))
    left_out = {str(f.path.relative_to(f.path.anchor)): f.reason for f in catalog.left_out}
    return [s.name for s in catalog.skills], left_out


def test_project_skills_that_lead_outside_or_block_are_left_out(
    tmp_path: Path, repo: Path, secret: Path
) -> None:
    folder = repo / ".heron" / "skills"
    write_skill(folder, "good")
    (folder / "linked").mkdir()
    (folder / "linked" / "SKILL.md").symlink_to(secret)
    (folder / "fifo").mkdir()
    os.mkfifo(folder / "fifo" / "SKILL.md")
    elsewhere = write_skill(tmp_path / "elsewhere", "away").parent
    (folder / "away").symlink_to(elsewhere)  # a skill folder leading out of the workspace
    (folder / "README.md").write_text("not a skill")
    os.mkfifo(folder / "pipe")  # not a skill folder: passed over
    names, left_out = skills_of(repo, tmp_path / "home")
    assert names == ["good"]
    reasons = {Path(p).parent.name: why for p, why in left_out.items()}
    assert reasons == {
        "linked": f"it lies outside the workspace (it leads to {secret})",
        "fifo": "it is a named pipe (FIFO), not a regular file",
        "away": f"it lies outside the workspace (it leads to {elsewhere / 'SKILL.md'})",
    }


def test_a_skills_folder_that_leads_outside_is_not_listed(
    tmp_path: Path, repo: Path, secret: Path
) -> None:
    write_skill(secret.parent / "skills", "stolen")
    (repo / ".claude").mkdir()
    (repo / ".claude" / "skills").symlink_to(secret.parent / "skills")
    catalog = find_skills(skill_folders(SkillSettings(), repo, tmp_path / "h", tmp_path / "h"))
    assert catalog.skills == ()
    [left_out] = catalog.left_out
    assert left_out.path == repo / ".claude" / "skills" and left_out.skill is None
    assert left_out.reason.startswith("it lies outside the workspace")


def test_the_user_s_skill_folders_may_be_linked_in(tmp_path: Path, repo: Path) -> None:
    home = tmp_path / "home"
    (home / "skills").mkdir(parents=True)
    mine = write_skill(tmp_path / "src", "mine").parent
    (home / "skills" / "mine").symlink_to(mine)
    names, left_out = skills_of(repo, home)
    assert names == ["mine"] and left_out == {}


def test_a_skill_s_file_that_is_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    path = write_skill(tmp_path / "skills", "pdf")
    os.mkfifo(path.parent / "hang.md")
    (path.parent / "dev.md").symlink_to("/dev/zero")
    (path.parent / "ref.md").write_text("REFERENCE")
    skill = Skill("pdf", "d", path, "project", "x")
    with pytest.raises(ToolError, match="named pipe"):
        load_file(skill, "hang.md", 20_000)
    with pytest.raises(ToolError, match="outside the skill's folder"):
        load_file(skill, "dev.md", 20_000)
    assert load_file(skill, "ref.md", 20_000) == "REFERENCE"
    assert files_beside(skill) == ["ref.md"]  # neither the FIFO nor the link is named


def test_a_long_skill_file_is_read_only_as_far_as_it_is_shown(tmp_path: Path) -> None:
    path = write_skill(tmp_path / "skills", "pdf")
    (path.parent / "long.md").write_bytes(b"z" * 5_000_000)
    skill = Skill("pdf", "d", path, "project", "x")
    assert load_file(skill, "long.md", 100) == "z" * 100 + "\n\n[long.md cut at 100 characters]"


def restore_plan(path: str) -> RestorePlan:
    change = Change(path, "restore", Entry("100644", "new"), Entry("100644", "old"))
    return RestorePlan(3, (change,))


@pytest.mark.anyio
async def test_the_restore_preview_does_not_read_through_a_link_out(
    tmp_path: Path, secret: Path
) -> None:
    workspace = tmp_path / "w"
    workspace.mkdir()
    (workspace / "config.py").symlink_to(secret)
    shown = await preview(restore_plan("config.py"), {"new": b"x = 1\n"}, workspace)
    [listing] = shown  # no diff
    assert isinstance(listing, TextContent)
    assert "the diff of config.py is not shown: it lies outside the workspace" in listing.text
    assert SECRET not in repr(shown)
    os.mkfifo(workspace / "pipe.py")
    with anyio.fail_after(5):
        [listing] = await preview(restore_plan("pipe.py"), {"new": b"y\n"}, workspace)
    assert isinstance(listing, TextContent) and "named pipe" in listing.text
    (workspace / "plain.py").write_text("old = 1\n")
    _, diff = await preview(restore_plan("plain.py"), {"new": b"new = 2\n"}, workspace)
    assert diff == DiffContent(str(workspace / "plain.py"), "old = 1\n", "new = 2\n")


@pytest.mark.anyio
async def test_a_mentioned_file_is_read_inside_the_workspace_only(
    tmp_path: Path, secret: Path
) -> None:
    workspace = tmp_path / "w"
    workspace.mkdir()
    (workspace / "notes.md").symlink_to(secret)
    os.mkfifo(workspace / "pipe.md")
    (workspace / "keys").symlink_to(secret.parent)
    (workspace / "app.py").write_text("a = 1\nb = 2\n")
    with anyio.fail_after(5):
        notes = await read_linked(f"file://{workspace}/notes.md", [workspace])
        pipe = await read_linked(f"file://{workspace}/pipe.md", [workspace])
        keys = await read_linked(f"file://{workspace}/keys", [workspace])
        outside = await read_linked(f"file://{secret}", [workspace])
        app = await read_linked(f"file://{workspace}/app.py#L2", [workspace])
    for found in (notes, keys, outside):
        assert found.text.startswith("(not read: it lies outside the workspace")
        assert found.problem is not None and SECRET not in found.text + found.problem
    assert "id_rsa" not in keys.text.partition("leads to")[0]  # the folder was not listed
    assert pipe.text == "(not read: it is a named pipe (FIFO), not a regular file)"
    assert app.text == "(lines 2-2)\nb = 2" and app.problem is None


def test_the_sandbox_reads_git_s_config_safely_for_its_hooks_folder(tmp_path: Path) -> None:
    root = tmp_path / "w"
    (root / ".git").mkdir(parents=True)
    (root / ".husky").mkdir()
    (root / ".git" / "config").write_text('[core]\n\thooksPath = ".husky"\n')
    assert root / ".husky" in protected_in(root, tmp_path / "home")
    (root / ".git" / "config").unlink()
    os.mkfifo(root / ".git" / "config")  # git itself would wait on it; the scan does not
    assert root / ".husky" not in protected_in(root, tmp_path / "home")
