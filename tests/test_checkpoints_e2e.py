"""Checkpoints end to end: `heron acp` on real stdio, the real anthropic SDK against the fake
model server, commands in the real sandbox. A turn's edits, a new file and a deleted folder
come back byte for byte with /undo, through one reviewed question; the user's own repository
never notices; a session loaded in a new process can still go back."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from tests.support.editor import FakeEditor
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall
from tests.support.permissions import full_access, questions
from tests.support.sandbox import END_TO_END_SANDBOX
from tests.support.updates import text_of, tool_updates

pytestmark = END_TO_END_SANDBOX


@pytest.fixture
def repository(workspace: Path) -> Path:
    """A user's project: committed files, an untracked cache folder, an ignored build."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x"}
    env.update(GIT_COMMITTER_NAME="u", GIT_COMMITTER_EMAIL="u@x")
    (workspace / "a.py").write_text("a = 1\n")
    (workspace / "b.py").write_text("b = 1\n")
    (workspace / ".gitignore").write_text("build/\n")
    (workspace / "cache" / "deep").mkdir(parents=True)
    for n in range(3):
        (workspace / "cache" / "deep" / f"{n}.bin").write_bytes(bytes([0, n]) * 500)
    (workspace / "build").mkdir()
    (workspace / "build" / "out").write_text("built\n")
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    subprocess.run(["git", "add", "a.py", "b.py"], cwd=workspace, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "c"], cwd=workspace, check=True, env=env)
    return workspace


def tree_hash(root: Path) -> str:
    """Every file's path, mode and bytes, outside .git."""
    digest = hashlib.sha256()
    for folder, names, files in sorted(os.walk(root)):
        names[:] = sorted(n for n in names if n != ".git")
        for name in sorted(files):
            path = Path(folder) / name
            digest.update(f"{path.relative_to(root)} {path.lstat().st_mode}\n".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def user_git(root: Path) -> tuple[str, ...]:
    def run(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True).stdout

    index = hashlib.sha256((root / ".git" / "index").read_bytes()).hexdigest()
    return run("status", "--porcelain"), run("for-each-ref"), run("stash", "list"), index


@pytest.fixture
def env_model() -> str:
    return "anthropic:claude-test"


def test_undo_brings_back_a_turns_edits_new_file_and_deleted_folder_byte_for_byte(
    env: dict[str, str], fake: FakeLLM, repository: Path
) -> None:
    before, user_before = tree_hash(repository), user_git(repository)
    with FakeEditor(env, terminal=False) as editor:
        fake.enqueue(
            Reply(
                (ToolCall("read_file", {"path": "a.py"}), ToolCall("read_file", {"path": "b.py"}))
            ),
            Reply(
                (
                    ToolCall(
                        "edit_file",
                        {"path": "a.py", "edits": [{"old_string": "a = 1", "new_string": "a = 2"}]},
                    ),
                    ToolCall(
                        "edit_file",
                        {"path": "b.py", "edits": [{"old_string": "b = 1", "new_string": "b = 2"}]},
                    ),
                    ToolCall("write_file", {"path": "c.py", "content": "c = 3\n"}),
                    ToolCall("terminal", {"command": "rm -r cache"}),
                )
            ),
            Reply((Text("done"),)),
        )
        session_id = full_access(editor, repository)
        _, updates = editor.prompt(session_id, "change things")
        assert not (repository / "cache").exists() and (repository / "c.py").exists()
        covered = {
            u["_meta"]["heron"]["checkpoint"]
            for calls in tool_updates(updates).values()
            for u in calls
            if "_meta" in u
        }
        assert covered == {1}  # every changing call names the turn's one checkpoint
        editor.writes.clear()
        asked = len(questions(editor))  # `rm -r` asked, even in full access
        _, updates = editor.prompt(session_id, "/undo")
    [question] = questions(editor)[asked:]  # one question for the whole restore
    shown = question["toolCall"]["content"]
    listing = shown[0]["content"]["text"]
    assert "restore a.py" in listing and "delete c.py" in listing
    assert "recreate cache/deep/0.bin" in listing
    diffs = {Path(c["path"]).name: c for c in shown if c["type"] == "diff"}
    assert diffs["a.py"]["oldText"] == "a = 2\n" and diffs["a.py"]["newText"] == "a = 1\n"
    assert [o["name"] for o in question["options"]] == ["Restore these files", "Cancel"]
    assert tree_hash(repository) == before
    assert user_git(repository) == user_before
    assert {Path(p).name for p, _ in editor.writes} == {"a.py", "b.py"}  # the editor's buffers
    assert "Restored 2" in text_of(updates) and "Deleted 1: c.py" in text_of(updates)


def test_three_turns_restored_to_the_first_and_undone_from_a_new_process(
    env: dict[str, str], fake: FakeLLM, repository: Path
) -> None:
    states = [tree_hash(repository)]
    with FakeEditor(env, terminal=False) as editor:
        session_id = full_access(editor, repository)
        for turn in range(1, 4):
            fake.enqueue(
                Reply(
                    (ToolCall("terminal", {"command": f"echo {turn} > t{turn}.txt; rm -f a.py"}),)
                ),
                Reply((Text("ok"),)),
            )
            editor.prompt(session_id, f"turn {turn}")
            states.append(tree_hash(repository))
        fake.enqueue(Reply((ToolCall("read_file", {"path": "b.py"}),)), Reply((Text("read"),)))
        editor.prompt(session_id, "only read")  # no checkpoint for it
    with FakeEditor(env, terminal=False) as editor:  # a fresh process
        editor.initialize()
        editor.request(
            "session/load", {"sessionId": session_id, "cwd": str(repository), "mcpServers": []}
        )
        editor.drain(quiet=0.2)
        _, listed = editor.prompt(session_id, "/checkpoints")
        listing = text_of(listed)
        assert "1. " in listing and "“turn 3”" in listing and "“only read”" not in listing
        _, bad = editor.prompt(session_id, "/restore 99")
        assert "There is no checkpoint 99" in text_of(bad)
        assert tree_hash(repository) == states[3]
        editor.prompt(session_id, "/undo")
        assert tree_hash(repository) == states[2]
        editor.answers.append("cancel")
        _, cancelled = editor.prompt(session_id, "/restore 1")
        assert "Nothing was changed" in text_of(cancelled)
        assert tree_hash(repository) == states[2]
        editor.prompt(session_id, "/restore 1")
        assert tree_hash(repository) == states[0]
        _, none_left = editor.prompt(session_id, "/undo")
        assert "no checkpoints" in text_of(none_left)


def test_a_deleted_or_damaged_checkpoint_repository_is_a_clear_message(
    env: dict[str, str], fake: FakeLLM, repository: Path, heron_home: Path
) -> None:
    with FakeEditor(env, terminal=False) as editor:
        fake.enqueue(
            Reply((ToolCall("write_file", {"path": "n.txt", "content": "n\n"}),)),
            Reply((Text("ok"),)),
        )
        session_id = full_access(editor, repository)
        editor.prompt(session_id, "write")
        [shadow] = [p for p in (heron_home / "checkpoints").iterdir() if p.is_dir()]
        for index in (shadow / "objects" / "pack").glob("*.idx"):
            index.write_bytes(b"damaged")
        (repository / "a.py").write_text("changed by the user\n")
        _, damaged = editor.prompt(session_id, "/undo")
        assert "Nothing was changed. The checkpoints cannot be read" in text_of(damaged)
        subprocess.run(["rm", "-rf", str(shadow)], check=True)
        _, deleted = editor.prompt(session_id, "/undo")
        assert "was deleted" in text_of(deleted)
    assert (repository / "n.txt").exists() and questions(editor) == []
