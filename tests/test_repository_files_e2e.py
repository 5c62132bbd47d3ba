"""A repository is untrusted input, over real stdio: `heron acp` against the fake model server,
in a temporary repository planted with links to secrets and with FIFOs. What the links lead to
reaches no model request and no editor message; a FIFO freezes nothing; every file left out is
named in a notice, with why."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.editor import FakeEditor
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall
from tests.support.permissions import full_access, questions
from tests.support.raw import RawAgent
from tests.support.updates import text_of

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAA-LEAKED"
CANARY = "canary-environ-5f0c1e"  # in Heron's own environment: /proc/self/environ
CONFIG_CANARY = "config-canary-a19d"  # in $HERON_HOME/config.toml
NOTICES: dict[str, Any] = {"session": {"notices": {}}}


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """The user's private key, outside the workspace, as ``~/.ssh/id_rsa`` is."""
    ssh = tmp_path / "dot-ssh"
    ssh.mkdir()
    (ssh / "id_rsa").write_text(SECRET + "\n")
    return ssh / "id_rsa"


@pytest.fixture
def env_model() -> str:
    return "anthropic:claude-test"


@pytest.fixture
def env(env: dict[str, str]) -> dict[str, str]:
    return {**env, "LEAK_CANARY": CANARY}


def write_skill(folder: Path, name: str, body: str = "Follow the steps.") -> Path:
    (folder / name).mkdir(parents=True)
    path = folder / name / "SKILL.md"
    path.write_text(f"---\nname: {name}\ndescription: Does {name}.\n---\n\n{body}\n")
    return path


def updates_of(agent: RawAgent) -> list[dict[str, Any]]:
    return [m["params"]["update"] for _, m in agent.arrivals if m.get("method") == "session/update"]


def notices_of(agent: RawAgent) -> dict[str, str]:
    return {
        u["title"]: u.get("description", "")
        for u in updates_of(agent)
        if u["sessionUpdate"] == "notice"
    }


def assert_nowhere(agent: RawAgent, fake: FakeLLM, *secrets: str) -> None:
    """Not in any request the model server got, nor any message the editor got."""
    sent = [json.dumps(r.body) for r in fake.requests]
    received = [json.dumps(m) for _, m in agent.arrivals]
    for text in secrets:
        assert not [s for s in sent if text in s], f"{text!r} reached the model"
        assert not [r for r in received if text in r], f"{text!r} reached the editor"


def test_secrets_linked_from_the_repository_reach_neither_the_model_nor_the_editor(
    env: dict[str, str], workspace: Path, heron_home: Path, secret: Path, fake: FakeLLM
) -> None:
    (heron_home / "config.toml").write_text(f"# {CONFIG_CANARY}\n")
    (workspace / "AGENTS.md").symlink_to(secret)
    (workspace / "CLAUDE.md").symlink_to("/proc/self/environ")
    (workspace / "HERON.md").symlink_to(heron_home / "config.toml")
    commands = workspace / ".heron" / "commands"
    commands.mkdir(parents=True)
    (commands / "deploy.md").symlink_to(secret)
    (commands / "review.md").write_text("Review $ARGUMENTS.\n")
    skills = workspace / ".heron" / "skills"
    (skills / "leak").mkdir(parents=True)
    (skills / "leak" / "SKILL.md").symlink_to(secret)
    notes = write_skill(skills, "notes", "Load ref.md first.")
    (notes.parent / "ref.md").symlink_to(secret)
    (workspace / "notes.md").symlink_to(secret)
    fake.enqueue(
        Reply((ToolCall("skill", {"name": "notes", "file": "ref.md"}),)),
        Reply((Text("done"),)),
        Reply((Text("reviewed"),)),
    )
    with RawAgent(env) as agent:
        session_id = agent.start_session(workspace, NOTICES)
        announced = agent.wait_for(lambda m: m.get("method") == "session/update")
        mention = {"type": "resource_link", "uri": f"file://{workspace}/notes.md", "name": "n"}
        prompt = [{"type": "text", "text": "look at the notes"}, mention]
        answer = agent.request("session/prompt", {"sessionId": session_id, "prompt": prompt})
        assert answer["result"]["stopReason"] == "end_turn"
        _, deploy = agent.prompt(session_id, "/deploy production")
        _, review = agent.prompt(session_id, "/review the patch")  # a working template still runs
    names = {c["name"] for c in announced["params"]["update"]["availableCommands"]}
    assert "review" in names and "notes" in names and not {"deploy", "leak"} & names
    notices = notices_of(agent)
    outside = "it lies outside the workspace (it leads to"
    assert notices["Ignored AGENTS.md"] == f"{workspace / 'AGENTS.md'}: {outside} {secret})"
    assert notices["Ignored CLAUDE.md"].startswith(f"{workspace / 'CLAUDE.md'}: {outside}")
    assert outside in notices["Ignored HERON.md"]
    assert (
        notices["Ignored the command /deploy"] == f"{commands / 'deploy.md'}: {outside} {secret})"
    )
    assert notices["Ignored the skill leak"].startswith(
        f"{skills / 'leak' / 'SKILL.md'}: {outside}"
    )
    assert notices["Mention left out"].startswith(f"{workspace / 'notes.md'}: {outside}")
    assert "/deploy was not run: the template was left out" in text_of(deploy)
    assert len(fake.requests) == 3  # the turn's two, none for /deploy, one for /review
    system = "".join(block["text"] for block in fake.requests[0].body["system"])
    assert "- notes: Does notes." in system and "leak" not in system
    tool_result = json.dumps(fake.requests[1].body["messages"][-1])
    assert "ref.md: it lies outside the skill's folder" in tool_result
    assert "Review the patch." in json.dumps(fake.requests[-1].body["messages"][-1])
    assert text_of(review) == "reviewed"
    assert_nowhere(agent, fake, SECRET, CANARY, CONFIG_CANARY, "BEGIN OPENSSH")


def test_a_restored_file_turned_into_a_link_shows_no_diff_of_what_it_leads_to(
    env: dict[str, str], workspace: Path, secret: Path, fake: FakeLLM
) -> None:
    (workspace / "a.py").write_text("a = 1\n")
    fake.enqueue(
        Reply((ToolCall("read_file", {"path": "a.py"}),)),
        Reply(
            (
                ToolCall(
                    "edit_file",
                    {"path": "a.py", "edits": [{"old_string": "a = 1", "new_string": "a = 2"}]},
                ),
            )
        ),
        Reply((Text("done"),)),
    )
    with FakeEditor(env, terminal=False) as editor:
        session_id = full_access(editor, workspace)
        editor.prompt(session_id, "change a.py")
        (workspace / "a.py").unlink()
        (workspace / "a.py").symlink_to(secret)  # the attacker's swap, after the turn
        _, undone = editor.prompt(session_id, "/undo")
    [question] = questions(editor)
    listing = question["toolCall"]["content"][0]["content"]["text"]
    assert "restore a.py" in listing
    assert (
        f"(the diff of a.py is not shown: it lies outside the workspace (it leads to {secret}))"
        in listing
    )
    assert [c for c in question["toolCall"]["content"] if c["type"] == "diff"] == []
    assert "Restored 1: a.py" in text_of(undone)
    assert not (workspace / "a.py").is_symlink() and (workspace / "a.py").read_text() == "a = 1\n"
    assert secret.read_text() == SECRET + "\n"  # never written through the link
    assert_nowhere(editor, fake, SECRET, "BEGIN OPENSSH")


def test_fifos_in_the_repository_freeze_nothing_and_are_named(
    env: dict[str, str], workspace: Path, heron_home: Path, fake: FakeLLM
) -> None:
    os.mkfifo(workspace / "AGENTS.md")
    (workspace / ".heron" / "commands").mkdir(parents=True)
    os.mkfifo(workspace / ".heron" / "commands" / "hang.md")
    (heron_home / "commands").mkdir()
    os.mkfifo(heron_home / "commands" / "mine.md")
    (workspace / ".heron" / "skills" / "stuck").mkdir(parents=True)
    os.mkfifo(workspace / ".heron" / "skills" / "stuck" / "SKILL.md")
    os.mkfifo(workspace / "pipe.txt")
    fake.enqueue(Reply((Text("first answer"),)))
    with RawAgent(env) as agent:
        agent.initialize(NOTICES)
        started = time.monotonic()
        session_id = agent.new_session(workspace)  # answered, not frozen
        assert time.monotonic() - started < 5
        agent.wait_for(lambda m: m.get("method") == "session/update")
        mention = {"type": "resource_link", "uri": f"file://{workspace}/pipe.txt", "name": "p"}
        prompt = [{"type": "text", "text": "hi"}, mention]
        answer = agent.request("session/prompt", {"sessionId": session_id, "prompt": prompt})
        assert answer["result"]["stopReason"] == "end_turn"
        _, helped = agent.prompt(session_id, "/help")
        _, hang = agent.prompt(session_id, "/hang")
        fake.enqueue(Reply((Text("partial"),), hold_open=30))
        agent.start_prompt(session_id, "a long answer", request_id="long")
        agent.wait_for(
            lambda m: (
                m.get("params", {}).get("update", {}).get("sessionUpdate") == "agent_message_chunk"
                and "partial" in json.dumps(m)
            )
        )
        cancelled_at = time.monotonic()
        agent.notify("session/cancel", {"sessionId": session_id})
        response = agent.wait_for(lambda m: m.get("id") == "long", timeout=5)
        assert response["result"] == {"stopReason": "cancelled"}
        assert time.monotonic() - cancelled_at < 3
    fifo = "it is a named pipe (FIFO), not a regular file"
    notices = notices_of(agent)
    assert notices["Ignored AGENTS.md"] == f"{workspace / 'AGENTS.md'}: {fifo}"
    assert (
        notices["Ignored the command /hang"] == f"{workspace / '.heron/commands/hang.md'}: {fifo}"
    )
    assert notices["Ignored the command /mine"] == f"{heron_home / 'commands/mine.md'}: {fifo}"
    assert (
        notices["Ignored the skill stuck"]
        == f"{workspace / '.heron/skills/stuck/SKILL.md'}: {fifo}"
    )
    assert notices["Mention left out"] == f"{workspace / 'pipe.txt'}: {fifo}"
    assert "`/help`" in text_of(helped) and "`/hang`" not in text_of(helped)
    assert text_of(hang) == (
        f"/hang was not run: the template was left out, {workspace / '.heron/commands/hang.md'}: "
        f"{fifo}."
    )
    assert "first answer" in text_of(updates_of(agent))
