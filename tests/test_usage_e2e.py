"""The usage line survives a restart: `heron acp` over real stdio with a real SQLite store and a
priced model on the fake server. A session loaded (or resumed) in a fresh process shows its last
usage once, and its next turn's cost adds to what the session had spent, a subagent's share
included; a session stored without usage loads without one and counts from zero."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.support.editor import FakeEditor
from tests.support.fake_llm import MODELS, FakeLLM, Reply, Text, ToolCall
from tests.support.session_load import reopen, updates_before

PROVIDER = "anthropic"
PRICED = '[models."{model}"]\ninput_price = 3.0\noutput_price = 15.0\n'


def cost_of(tokens_in: int, tokens_out: int) -> float:
    return (tokens_in * 3.0 + tokens_out * 15.0) / 1_000_000


@pytest.fixture
def env_config() -> str:
    return PRICED.format(model=MODELS[PROVIDER])


def usages(updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [u for u in updates if u["sessionUpdate"] == "usage_update"]


def two_turns(env: dict[str, str], workspace: Path, fake: FakeLLM) -> tuple[str, dict[str, Any]]:
    """A session whose second turn delegates to a subagent; its id and its last usage seen."""
    fake.enqueue(
        Reply((Text("First."),), usage=(100, 20)),
        Reply((ToolCall("delegate", {"task": "Find CHILD-TASK"}),), usage=(200, 30)),
        Reply((Text("Second."),), usage=(300, 40)),
    )
    fake.enqueue_for("CHILD-TASK", Reply((Text("found it"),), usage=(50, 10)))
    with FakeEditor(env) as editor:
        session_id = editor.start_session(workspace)
        _, first = editor.prompt(session_id, "one")
        _, second = editor.prompt(session_id, "two")
    live = usages(first + second)
    spent = cost_of(100, 20) + cost_of(200, 30) + cost_of(50, 10) + cost_of(300, 40)
    assert live[-1]["cost"]["amount"] == pytest.approx(spent)  # the subagent's share included
    assert live[-1]["used"] == 340
    return session_id, live[-1]


def test_a_loaded_session_shows_its_last_usage_once_and_its_cost_goes_on(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    session_id, last = two_turns(env, workspace, fake)
    fake.enqueue(Reply((Text("Third."),), usage=(400, 50)))
    with FakeEditor(env) as editor:  # a fresh process
        replayed, response = reopen(editor, session_id, workspace)
        assert "result" in response
        assert usages(replayed) == [last]  # exactly one, as the editor last saw it live
        kinds = [u["sessionUpdate"] for u in replayed]
        assert kinds.index("usage_update") > max(
            n for n, kind in enumerate(kinds) if kind == "agent_message_chunk"
        )  # after the history it sums up
        _, third = editor.prompt(session_id, "three")
    [after] = usages(third)
    assert after["cost"]["amount"] == pytest.approx(last["cost"]["amount"] + cost_of(400, 50))
    assert after["used"] == 450 and after["size"] == last["size"]


def test_a_resumed_session_shows_its_last_usage_before_the_answer(
    env: dict[str, str], workspace: Path, fake: FakeLLM
) -> None:
    session_id, last = two_turns(env, workspace, fake)
    fake.enqueue(Reply((Text("Third."),), usage=(400, 50)))
    with FakeEditor(env) as editor:
        editor.initialize()
        params = {"sessionId": session_id, "cwd": str(workspace)}
        editor.send({"jsonrpc": "2.0", "id": "r", "method": "session/resume", "params": params})
        before, response = updates_before(editor, "r")
        assert "result" in response
        assert usages(before) == [last]
        _, third = editor.prompt(session_id, "three")
    [after] = usages(third)
    assert after["cost"]["amount"] == pytest.approx(last["cost"]["amount"] + cost_of(400, 50))


def test_a_session_stored_without_usage_loads_without_it_and_counts_from_zero(
    env: dict[str, str], workspace: Path, fake: FakeLLM, heron_home: Path
) -> None:
    session_id, _ = two_turns(env, workspace, fake)
    with sqlite3.connect(heron_home / "sessions.db") as db:  # as a Heron before usage was kept
        removed = db.execute(
            'DELETE FROM transcript WHERE body LIKE \'{"sessionUpdate":"usage_update"%\''
        ).rowcount
    assert removed > 0
    fake.enqueue(Reply((Text("Third."),), usage=(400, 50)))
    with FakeEditor(env) as editor:
        replayed, response = reopen(editor, session_id, workspace)
        assert "result" in response
        assert usages(replayed) == []
        assert [u for u in replayed if u["sessionUpdate"] == "agent_message_chunk"]
        _, third = editor.prompt(session_id, "three")
    [after] = usages(third)
    assert after["cost"]["amount"] == pytest.approx(cost_of(400, 50))
