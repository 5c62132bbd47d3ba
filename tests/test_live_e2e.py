"""A live workspace end to end: a real `heron acp` over stdio sees commands, skills, instructions
and config.toml change while a session is idle (inotify on Linux), and tells the editor without
waiting for a prompt; with watching off, the checks each prompt makes still work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_llm import FakeLLM, Reply, Text
from tests.support.mcp_sessions import ROOT
from tests.support.raw import RawAgent

HERON = str(Path(sys.executable).parent / "heron")
ARRIVES_S = 5.0  # generous: the watcher tells within a second
NOTICES = {"session": {"notices": {}}}


def update_of(message: dict[str, Any], kind: str) -> dict[str, Any] | None:
    if message.get("method") != "session/update":
        return None
    update = message["params"]["update"]
    return update if update["sessionUpdate"] == kind else None


def commands_listed(agent: RawAgent, predicate: Any) -> set[str]:
    """The names in the next ``available_commands_update`` that ``predicate`` accepts."""

    def listed(message: dict[str, Any]) -> set[str] | None:
        update = update_of(message, "available_commands_update")
        return None if update is None else {c["name"] for c in update["availableCommands"]}

    message = agent.wait_for(lambda m: (n := listed(m)) is not None and predicate(n), ARRIVES_S)
    names = listed(message)
    assert names is not None
    return names


def notice_titled(agent: RawAgent, title: str) -> dict[str, Any]:
    message = agent.wait_for(
        lambda m: (u := update_of(m, "notice")) is not None and u["title"] == title, ARRIVES_S
    )
    return message["params"]["update"]


def test_commands_and_skills_reach_the_editor_without_a_prompt(
    agent_env: dict[str, str], workspace: Path
) -> None:
    with RawAgent(agent_env) as agent:
        agent.start_session(workspace)
        assert "review" not in commands_listed(agent, lambda names: "help" in names)

        template = workspace / ".heron" / "commands" / "review.md"
        template.parent.mkdir(parents=True)
        template.write_text("description: Review the change\n\nReview $ARGUMENTS\n")
        assert "review" in commands_listed(agent, lambda names: "review" in names)

        skill = workspace / ".heron" / "skills" / "tidy" / "SKILL.md"
        skill.parent.mkdir(parents=True)
        skill.write_text("---\nname: tidy\ndescription: Tidy the imports.\n---\n\nSort them.\n")
        assert {"review", "tidy"} <= commands_listed(agent, lambda names: "tidy" in names)

        template.unlink()
        assert "tidy" in commands_listed(agent, lambda names: "review" not in names)
        sent = [m for _, m in agent.arrivals if m.get("method") == "session/prompt"]
        assert not sent


def test_an_edited_agents_md_is_told_without_a_prompt_and_only_once(
    agent_env: dict[str, str], workspace: Path
) -> None:
    instructions = workspace / "AGENTS.md"
    instructions.write_text("Use tabs.\n")
    with RawAgent(agent_env) as agent:
        session_id = agent.start_session(workspace, NOTICES)
        agent.prompt(session_id, "hello")  # the system prompt is made from the file as it was
        instructions.write_text("Use four spaces.\n")
        notice = notice_titled(agent, "AGENTS.md changed")
        assert "/reload" in notice["description"]
        _, updates = agent.prompt(session_id, "hello again")
        assert not [u for u in updates if u["sessionUpdate"] == "notice"]  # told once


def test_an_mcp_server_added_to_config_toml_serves_the_next_prompt(
    env: dict[str, str], workspace: Path, fake: FakeLLM, heron_home: Path
) -> None:
    fake.enqueue(Reply((Text("first"),)), Reply((Text("second"),)))
    with RawAgent(env) as agent:
        session_id = agent.start_session(workspace)
        agent.prompt(session_id, "before")
        (heron_home / "config.toml").write_text(
            f'[mcp_servers.local]\ncommand = "{sys.executable}"\n'
            'args = ["-m", "tests.support.mcp_server", "stdio"]\n'
            f'env = {{ PYTHONPATH = "{ROOT}" }}\n'
        )
        commands_listed(agent, lambda names: True)  # the file was seen: read again, at once
        agent.prompt(session_id, "after")
    before = {tool["name"] for tool in fake.requests[0].body["tools"]}
    after = {tool["name"] for tool in fake.requests[1].body["tools"]}
    assert "mcp__local__add" not in before
    assert "mcp__local__add" in after


@pytest.mark.parametrize("env_config", ["[workspace]\nwatch = false\n"])
def test_without_watching_each_prompt_still_checks_and_the_log_says_so_once(
    agent_env: dict[str, str], workspace: Path, heron_home: Path, env_config: str
) -> None:
    (heron_home / "config.toml").write_text(env_config)
    instructions = workspace / "AGENTS.md"
    instructions.write_text("Use tabs.\n")
    with RawAgent(agent_env) as agent:
        first = agent.start_session(workspace, NOTICES)
        second = agent.new_session(workspace)
        agent.prompt(first, "hello")
        instructions.write_text("Use four spaces.\n")
        template = workspace / ".heron" / "commands" / "review.md"
        template.parent.mkdir(parents=True)
        template.write_text("description: Review the change\n\nReview the change: $ARGUMENTS\n")
        seen = agent.drain(1.0)  # nothing comes by itself
        assert not [
            m for m in seen if update_of(m, "notice") or update_of(m, "agent_message_chunk")
        ]
        assert not [
            m
            for m in seen
            if (u := update_of(m, "available_commands_update"))
            and "review" in {c["name"] for c in u["availableCommands"]}
        ]
        _, updates = agent.prompt(first, "/review the tests")  # the prompt's own checks
        assert [u["title"] for u in updates if u["sessionUpdate"] == "notice"] == [
            "AGENTS.md changed"
        ]
        echoed = "".join(
            u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"
        )
        assert "Review the change: the tests" in echoed
        agent.prompt(second, "hello")
        agent.close()
    logged = "".join(p.read_text() for p in (heron_home / "logs").glob("*"))
    assert logged.count("not watching files: turned off in config.toml") == 1


def test_doctor_says_whether_files_are_watched(
    agent_env: dict[str, str], workspace: Path, heron_home: Path
) -> None:
    def doctor() -> str:
        run = subprocess.run(
            [HERON, "doctor"], env=agent_env, cwd=workspace, capture_output=True, text=True
        )
        return run.stdout

    assert "[ok] file watching: on" in doctor()
    (heron_home / "config.toml").write_text("[workspace]\nwatch = false\n")
    assert "file watching: off ([workspace] watch = false)" in doctor()
