"""Session export's translations, on a session written to and read back from a real SQLite store:
prompts, thoughts, tool calls with results (one failed, one with an image), a plan, usage, a
subagent's items and a note to the model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio

from acp_server.bridge.export import default_name, export_text, format_of
from acp_server.bridge.updates import from_plan_update
from agent_core.events import PlanEntry, PlanUpdated, UsageUpdated
from agent_core.messages import (
    AssistantMessage,
    ImagePart,
    Message,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    UserMessage,
)
from agent_core.sessions.export import to_jsonl, to_markdown, to_sharegpt
from agent_core.sessions.sqlite import SqliteSessionStore
from agent_core.sessions.store import SessionRecord, StoredSession

PLAN = [
    {"content": "Read the greeter", "priority": "high", "status": "completed"},
    {"content": "Add --shout", "priority": "medium", "status": "in_progress"},
]
LONG_OUTPUT = "\n".join(f"line {n}" for n in range(500))
CONVERSATION: list[Message] = [
    UserMessage((TextPart("Add a --shout flag"), ImagePart("aGk=", "image/png")), "p1"),
    AssistantMessage(
        (
            ThinkingPart("Plan first, then read the file.", "sig"),
            ToolCallPart("c1", "todo", {"items": PLAN}),
            ToolCallPart("c2", "read_file", {"path": "src/greeter.py"}),
        ),
        "r1",
    ),
    UserMessage(
        (
            ToolResultPart("c1", '{"entries": 2}'),
            ToolResultPart("c2", "def greet(name):\n    return f'Hello, {name}!' # ```"),
        )
    ),
    AssistantMessage((ToolCallPart("c3", "terminal", {"command": "pytest -q"}),), "r2"),
    UserMessage(
        (ToolResultPart("c3", LONG_OUTPUT, is_error=True, images=(ImagePart("aGk=", "x/y"),)),)
    ),
    AssistantMessage((TextPart("Done: `greet()` shouts with **--shout**."),), "r3"),
    UserMessage((TextPart("(The user restored the workspace.)"),)),  # a note, no prompt id
    UserMessage((TextPart("Thanks"),), "p2"),
    AssistantMessage((ThinkingPart("Nothing to do."), TextPart("You're welcome.")), "r4"),
]
TRANSCRIPT: list[dict[str, Any]] = [
    {"sessionUpdate": "user_message_chunk", "messageId": "p1", "content": {"type": "text", "text": "Add a --shout flag"}},
    {"sessionUpdate": "agent_thought_chunk", "messageId": "r1", "content": {"type": "text", "text": "Plan first"}},
    {"sessionUpdate": "plan", "entries": [{**PLAN[0], "status": "pending"}]},
    {"sessionUpdate": "tool_call", "toolCallId": "c2", "title": "Read src/greeter.py", "kind": "read", "status": "pending", "rawInput": {"path": "src/greeter.py"}},
    {"sessionUpdate": "tool_call_update", "toolCallId": "c2", "status": "completed"},
    {"sessionUpdate": "usage_update", "used": 1200, "size": 200000, "cost": {"amount": 0.01, "currency": "USD"}},
    {"sessionId": "child-1", "update": {"sessionUpdate": "plan", "entries": [{"content": "a subagent's", "priority": "low", "status": "pending"}]}},
    {"sessionUpdate": "plan", "entries": PLAN},
    {"sessionUpdate": "agent_message_chunk", "messageId": "r3", "content": {"type": "text", "text": "Done"}},
    {"sessionUpdate": "usage_update", "used": 2400, "size": 200000, "cost": {"amount": 0.0234, "currency": "USD"}},
]  # fmt: skip


def stored_session(tmp_path: Path) -> StoredSession:
    """The session above, written in two saves as a session's turns are, then loaded."""

    async def run() -> StoredSession:
        store = SqliteSessionStore(tmp_path / "sessions.db")
        record = SessionRecord("5e55-10n", tmp_path / "ws", (tmp_path / "lib",), None, 0.0, "ask")
        await store.create(record)
        await store.update("5e55-10n", title="Add a shout flag", model="scripted:demo")
        await store.append("5e55-10n", CONVERSATION[:6], TRANSCRIPT[:6])
        await store.append("5e55-10n", CONVERSATION[6:], TRANSCRIPT[6:])
        try:
            return await store.load("5e55-10n")
        finally:
            await store.close()

    return anyio.run(run)


def test_markdown_reads_as_the_session_did(tmp_path: Path) -> None:
    stored = stored_session(tmp_path)
    text = export_text(stored, "markdown")
    head, _, body = text.partition("## Prompt 1")
    assert head.startswith("# Add a shout flag\n")
    for fact in ("`5e55-10n`", f"`{tmp_path / 'ws'}`", f"`{tmp_path / 'lib'}`", "`scripted:demo`"):
        assert fact in head
    assert "**Mode:** ask" in head and "UTC" in head
    assert "> Add a --shout flag\n>\n> [image: image/png]" in body
    assert "<details>\n<summary>Thinking</summary>\n\nPlan first, then read the file." in body
    assert "<summary>Tool: <code>read_file</code> src/greeter.py (done)</summary>" in body
    assert '"path": "src/greeter.py"' in body  # its input
    assert "\n````\ndef greet(name):" in body  # a fence longer than the backticks inside
    assert "<summary>Tool: <code>terminal</code> pytest -q (failed)</summary>" in body
    assert "line 59\n… (" in body and "line 60" not in body  # a long result is capped
    assert "[1 image(s) not included]" not in body  # cut with the rest of the long output
    assert "Done: `greet()` shouts with **--shout**." in body
    assert "_Note to the model:_\n\n> (The user restored the workspace.)" in body
    assert "## Prompt 2\n\n> Thanks" in body and "## Prompt 3" not in body
    plan = body.index("## Plan\n\n- [x] Read the greeter\n- [~] Add --shout")  # the last plan
    usage = body.index("## Usage")
    assert plan < usage and "a subagent's" not in body
    assert body[usage:].splitlines()[2:] == [
        "- Prompts: 2 · model responses: 4 · tool calls: 3 (1 failed)",
        "- Context: 2,400 of 200,000 tokens",
        "- Cost: $0.0234",
    ]


def test_markdown_without_a_plan_or_usage_says_so(tmp_path: Path) -> None:
    stored = stored_session(tmp_path)
    text = to_markdown(stored)
    assert "## Plan" not in text and "- Context and cost: not recorded" in text
    usage = UsageUpdated(10, 100, None)
    plan = PlanUpdated((PlanEntry("x", "pending"),))
    assert "- Cost: unknown" in to_markdown(stored, plan=plan, usage=usage)


def test_sharegpt_is_hermes_trajectory_shaped(tmp_path: Path) -> None:
    record = to_sharegpt(stored_session(tmp_path), tools=[{"name": "read_file", "parameters": {}}])
    turns = record["conversations"]
    assert [t["from"] for t in turns] == ["system", "human", "gpt", "tool", "gpt", "tool", "gpt", "human", "gpt"]  # fmt: skip
    system = turns[0]["value"]
    listed = json.loads(system.split("<tools>\n")[1].split("\n</tools>")[0])
    assert [t["name"] for t in listed] == ["read_file", "terminal", "todo"]  # given, then called
    assert json.loads(record["tools"]) == listed
    assert turns[1]["value"] == "Add a --shout flag\n\n[image: image/png]"
    first = turns[2]["value"]
    assert first.startswith("<think>\nPlan first, then read the file.\n</think>\n<tool_call>\n")
    calls = [json.loads(c.split("\n</tool_call>")[0]) for c in first.split("<tool_call>\n")[1:]]
    assert calls == [
        {"name": "todo", "arguments": {"items": PLAN}},
        {"name": "read_file", "arguments": {"path": "src/greeter.py"}},
    ]
    responses = [
        json.loads(r.split("\n</tool_response>")[0])
        for r in turns[3]["value"].split("<tool_response>\n")[1:]
    ]
    assert responses[0] == {"tool_call_id": "c1", "name": "todo", "content": {"entries": 2}}
    assert responses[1]["name"] == "read_file" and responses[1]["content"].startswith("def greet")
    failed = json.loads(turns[5]["value"].split("<tool_response>\n")[1].split("\n</tool_")[0])
    assert failed["content"].endswith("line 499\n[1 image(s) not included]")  # whole here
    assert turns[6]["value"] == "<think>\n</think>\nDone: `greet()` shouts with **--shout**."
    assert turns[7]["value"] == "(The user restored the workspace.)\n\nThanks"  # one human turn
    assert turns[8]["value"] == "<think>\nNothing to do.\n</think>\nYou're welcome."
    assert record["id"] == "5e55-10n" and record["completed"] is True
    assert record["metadata"]["title"] == "Add a shout flag"
    assert record["tool_stats"]["terminal"] == {"count": 1, "success": 0, "failure": 1}
    assert record["tool_error_counts"] == {"todo": 0, "read_file": 0, "terminal": 1}


def test_sharegpt_of_a_session_stopped_mid_call_is_not_completed(tmp_path: Path) -> None:
    stored = stored_session(tmp_path)
    cut = StoredSession(stored.record, stored.messages[:4], ())
    record = to_sharegpt(cut)
    assert record["completed"] is False and record["conversations"][-1]["from"] == "gpt"
    assert record["tool_stats"]["terminal"] == {"count": 1, "success": 0, "failure": 1}


def test_the_cli_sharegpt_lists_herons_tools_on_one_line(tmp_path: Path) -> None:
    text = export_text(stored_session(tmp_path), "sharegpt")
    assert text.endswith("}\n") and text.count("\n") == 1  # joined exports are JSON Lines
    names = [t["name"] for t in json.loads(json.loads(text)["tools"])]
    assert {"read_file", "terminal", "todo", "edit_file", "write_file"} <= set(names)


def test_jsonl_is_a_header_then_the_stored_items(tmp_path: Path) -> None:
    stored = stored_session(tmp_path)
    lines = export_text(stored, "jsonl").splitlines()
    header = json.loads(lines[0])
    assert header["type"] == "session" and header["sessionId"] == "5e55-10n"
    assert header["cwd"] == str(tmp_path / "ws") and header["model"] == "scripted:demo"
    assert header["messages"] == len(CONVERSATION) and header["items"] == len(TRANSCRIPT)
    assert [json.loads(line) for line in lines[1:]] == TRANSCRIPT
    assert to_jsonl(stored)[1:] == list(stored.transcript)  # as stored, not encoded again


def test_plans_read_back_and_formats_by_suffix() -> None:
    update = {"sessionUpdate": "plan", "entries": [*PLAN, {"content": 3}, "junk"]}
    assert from_plan_update(update) == PlanUpdated(
        (
            PlanEntry("Read the greeter", "completed", "high"),
            PlanEntry("Add --shout", "in_progress"),
        )
    )
    assert from_plan_update({"sessionUpdate": "usage_update"}) is None
    assert from_plan_update(None) is None
    assert format_of("out/session.jsonl") == "jsonl" and format_of("a.json") == "sharegpt"
    assert format_of("notes.md") == "markdown" and format_of("notes.txt") is None
    assert default_name("0123456789abcdef", "sharegpt") == "heron-session-01234567.json"


def test_a_lone_surrogate_is_written_as_a_replacement(tmp_path: Path) -> None:
    stored = stored_session(tmp_path)
    odd = StoredSession(stored.record, [UserMessage((TextPart("half \ud83d"),), "p")], ())
    for form in ("markdown", "sharegpt"):
        assert "half ?" in export_text(odd, form)
