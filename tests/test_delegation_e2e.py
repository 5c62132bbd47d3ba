"""Subagents end to end: `heron acp` over real stdio, every provider's real SDK against the fake
model server. A parent's `delegate` calls run children whose tool calls the editor sees nested
under the parent call, whose reports alone reach the parent's context, whose cost joins the
session's, and which a cancel stops."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.editor import FakeEditor
from tests.support.fake_llm import MODELS, FakeLLM, Reply, Text, ToolCall
from tests.support.session_load import reopen
from tests.support.subagents import delegate, two_lookups
from tests.support.updates import of_kind

PRICED = '[models."{model}"]\ninput_price = 3.0\noutput_price = 15.0\n'


@pytest.fixture
def env_model(provider: str) -> str:
    return MODELS[provider]


@pytest.fixture
def env_config(env_model: str) -> str:
    return PRICED.format(model=env_model)


def parent_of(update: dict[str, Any]) -> str | None:
    return update.get("_meta", {}).get("heron", {}).get("parentToolCallId")


def test_two_read_only_subagents_run_at_once_and_only_their_reports_return(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    two_lookups(workspace, fake)
    agent = FakeEditor(env)
    with agent:
        session_id = agent.start_session(workspace)
        stop, updates = agent.prompt(session_id, "where are alpha and beta?")
    assert stop == "end_turn"

    delegated = [u for u in of_kind(updates, "tool_call") if u["name"] == "delegate"]
    parents = {u["toolCallId"] for u in delegated}
    titles = {u["toolCallId"]: u["title"] for u in updates if "toolCallId" in u and "title" in u}
    assert sorted(titles[p] for p in parents) == ["Find ALPHA-TASK", "Find BETA-TASK"]
    reads = [u for u in of_kind(updates, "tool_call") if u["name"] == "read_file"]
    assert len(reads) == 2 and {parent_of(u) for u in reads} == parents
    read_ids = {u["toolCallId"] for u in reads}
    for update in of_kind(updates, "tool_call_update"):
        if update["toolCallId"] in read_ids:
            assert parent_of(update) in parents  # every update of a child call says whose

    children = [r for r in fake.requests if "You are a subagent" in json.dumps(r.body)]
    assert len(children) == 4
    openings = children[:2]  # each child's first request: they overlap in time
    assert max(r.started_at for r in openings) < min(fake.finished(r) for r in openings)
    assert {"ALPHA" in json.dumps(r.body) for r in openings} == {True, False}

    parent_last = json.dumps(fake.requests[-1].body)
    assert "alpha is in alpha.txt line 1" in parent_last
    assert "beta is in beta.txt line 1" in parent_last
    assert "lives here" not in parent_last  # what the children read stays theirs
    assert "You are a subagent" not in parent_last

    finals = {
        u["toolCallId"]: u
        for u in of_kind(updates, "tool_call_update")
        if u["toolCallId"] in parents and u.get("status") == "completed"
    }
    assert set(finals) == parents
    for final in finals.values():
        assert "Report of the subagent (2 requests, 1 tool calls)" in final["rawOutput"]["output"]
    digests = [
        u["content"][0]["content"]["text"]
        for u in of_kind(updates, "tool_call_update")
        if u["toolCallId"] in parents and u.get("content")
    ]
    assert any("✓ Read alpha.txt" in d for d in digests)
    costs = [u["cost"]["amount"] for u in of_kind(updates, "usage_update") if u.get("cost")]
    one_request = (100 * 3.0 + 20 * 15.0) / 1_000_000
    assert costs[-1] == pytest.approx(6 * one_request)  # the parent's two and the children's four


def test_a_writing_subagent_asks_before_its_edit(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    fake.enqueue(
        Reply((delegate("Retitle EDIT-TASK", tools=["read_file", "edit_file"]),)),
        Reply((Text("Done."),)),
    )
    edit = {"path": "README.md", "edits": [{"old_string": "# sample", "new_string": "# retitled"}]}
    fake.enqueue_for(
        "EDIT-TASK",
        Reply((ToolCall("read_file", {"path": "README.md"}),)),
        Reply((ToolCall("edit_file", edit),)),
        Reply((Text("Retitled README.md."),)),
    )
    agent = FakeEditor(env)
    with agent:
        session_id = agent.start_session(workspace)
        stop, updates = agent.prompt(session_id, "retitle the readme")
    assert stop == "end_turn"
    [asked] = [r for r in agent.requests if r["method"] == "session/request_permission"]
    [edit_call] = [u for u in of_kind(updates, "tool_call") if u["name"] == "edit_file"]
    assert asked["params"]["toolCall"]["toolCallId"] == edit_call["toolCallId"]
    assert parent_of(edit_call) is not None
    assert (workspace / "README.md").read_text() == "# retitled\n"
    assert "Retitled README.md." in json.dumps(fake.requests[-1].body)


def test_cancel_during_a_subagent_stops_it_and_reload_replays_its_calls(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    fake.enqueue(Reply((delegate("Explore SLOW-TASK"),)))
    fake.enqueue_for(
        "SLOW-TASK",
        Reply((ToolCall("find_files", {"pattern": "*.md"}),)),
        Reply((Text("Still looking"),), hold_open=30),
    )
    agent = FakeEditor(env)
    with agent:
        session_id = agent.start_session(workspace)
        agent.start_prompt(session_id, "explore", request_id="p")
        fake.wait_for_requests(3)
        time.sleep(0.2)  # the child's second request is streaming, held open
        agent.notify("session/cancel", {"sessionId": session_id})
        response = agent.wait_for(lambda m: m.get("id") == "p", timeout=5)
        assert response["result"] == {"stopReason": "cancelled"}
        held = fake.requests[2]
        fake.finished(held, timeout=5)
        assert held.client_closed  # no child request is left open
    assert len(fake.requests) == 3

    again = FakeEditor(env)
    with again:
        replayed, _ = reopen(again, session_id, workspace)
    [finder] = [u for u in of_kind(replayed, "tool_call") if u["name"] == "find_files"]
    [parent] = [u for u in of_kind(replayed, "tool_call") if u["name"] == "delegate"]
    assert parent_of(finder) == parent["toolCallId"]
