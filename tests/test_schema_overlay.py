"""The vendored ACP schema is the official base with the stable subagent parts laid over it
(tools/overlay_schema.py, vendor/acp-schema/overlay-1.34.json), and the message checker holds
the subagent messages to it."""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from tests.support.schema import WireChecker

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "tools" / "overlay_schema.py"
VENDORED = REPO / "vendor" / "acp-schema"
BASE = VENDORED / "schema.base.json"
OVERLAY = VENDORED / "overlay-1.34.json"


@cache
def overlay_tool() -> ModuleType:
    """tools/overlay_schema.py as a module (tools/ is not a package)."""
    spec = importlib.util.spec_from_file_location("overlay_schema", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def overlay() -> Any:
    return overlay_tool().parse_overlay(load(OVERLAY), OVERLAY.name)


def test_the_vendored_schema_is_the_base_with_the_overlay() -> None:
    command = [
        sys.executable, str(SCRIPT), "--check",
        "--base", str(BASE), "--overlay", str(OVERLAY), "--out", str(VENDORED / "schema.json"),
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_applying_the_overlay_twice_changes_nothing() -> None:
    tool = overlay_tool()
    base = load(BASE)
    once, first = tool.apply(base, overlay())
    twice, second = tool.apply(once, overlay())
    assert tool.render(twice) == tool.render(once)
    assert all(outcome.added for outcome in first)
    assert [(o.added, o.reason) for o in second] == [(False, "applied already")] * len(second)
    assert base == load(BASE), "apply leaves its input alone"


def test_a_part_the_base_already_has_is_skipped_and_the_base_kept() -> None:
    tool = overlay_tool()
    base = load(BASE)
    newer = copy.deepcopy(base)
    defs = newer["$defs"]
    defs["SubagentUpdate"] = {"type": "object", "description": "the newer base's own"}
    defs["ClientCapabilities"]["properties"]["subagents"] = {"type": "object"}
    defs["ToolCallContent"]["oneOf"].append(
        {"type": "object", "properties": {"type": {"const": "session"}}, "required": ["type"]}
    )
    schema, outcomes = tool.apply(newer, overlay())
    skipped = {o.part.id for o in outcomes if not o.added}
    assert skipped == {
        "def:SubagentUpdate",
        "property:ClientCapabilities.subagents",
        "variant:ToolCallContent.session",
    }
    assert all(o.reason == "in the base" for o in outcomes if not o.added)
    assert schema["$defs"]["SubagentUpdate"] == defs["SubagentUpdate"]
    assert schema["$defs"]["ClientCapabilities"]["properties"]["subagents"] == {"type": "object"}
    tags = [v["properties"]["type"]["const"] for v in schema["$defs"]["ToolCallContent"]["oneOf"]]
    assert tags.count("session") == 1
    assert "SubagentSessionCapabilities" in schema["$defs"], "the parts it lacks still come in"


def test_the_script_says_which_parts_the_base_has(tmp_path: Path) -> None:
    newer = load(BASE)
    newer["$defs"]["SessionReference"] = {"type": "object"}
    (tmp_path / "base.json").write_text(json.dumps(newer))
    command = [
        sys.executable, str(SCRIPT), "--base", str(tmp_path / "base.json"),
        "--overlay", str(OVERLAY), "--out", str(tmp_path / "schema.json"),
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=True)
    assert "skipped (in the base): def:SessionReference" in result.stdout
    assert "added: variant:ToolCallContent.session" in result.stdout
    assert "drop them from overlay-1.34.json" in result.stdout


def test_a_malformed_overlay_is_refused() -> None:
    tool = overlay_tool()
    part = {"id": "x", "add": "variant", "def": "SessionUpdate", "value": "v", "source": "s"}
    with pytest.raises(tool.OverlayError, match="schema"):
        tool.parse_overlay({"parts": [part]}, "o.json")
    with pytest.raises(tool.OverlayError, match="tag"):
        tool.parse_overlay({"parts": [{**part, "schema": {}}]}, "o.json")
    with pytest.raises(tool.OverlayError, match="add"):
        tool.parse_overlay({"parts": [{**part, "add": "rename", "schema": {}}]}, "o.json")


def test_every_part_names_its_source() -> None:
    for part in overlay().parts:
        assert part.source.strip(), part.id


# The checker (tests/support/schema.py) against the vendored schema.

CHILD = "sess_child"
INITIALIZE = {
    "jsonrpc": "2.0", "id": 0, "method": "initialize",
    "params": {"protocolVersion": 1, "clientCapabilities": {"subagents": {}}},
}  # fmt: skip


def update(value: dict[str, Any], session: str = "sess_parent") -> dict[str, Any]:
    params = {"sessionId": session, "update": value}
    return {"jsonrpc": "2.0", "method": "session/update", "params": params}


SUBAGENT_UPDATES = [
    {"sessionUpdate": "subagent_update", "sessionId": CHILD},
    {
        "sessionUpdate": "subagent_update", "sessionId": CHILD, "title": "Explorer",
        "description": "Searches the repository", "capabilities": {"cancel": {}},
        "state": {"state": "running"}, "cwd": "/work", "additionalDirectories": [], "_meta": {},
    },
    {"sessionUpdate": "subagent_update", "sessionId": CHILD, "state": {"state": "idle", "stopReason": "end_turn"}},
    {
        "sessionUpdate": "subagent_update", "sessionId": CHILD,
        "state": {"state": "idle", "stopReason": "error", "error": {"code": -32603, "message": "model failed"}},
    },
    {"sessionUpdate": "subagent_update", "sessionId": CHILD, "state": {"state": "requires_action"}, "capabilities": None},
    {"sessionUpdate": "subagent_update", "sessionId": CHILD, "state": {"state": "unknown"}, "title": None},
    {"sessionUpdate": "session_message", "messageId": "m-7", "senderSessionId": "sess_parent",
     "recipientSessionId": CHILD, "content": [{"type": "text", "text": "Find the callers of foo"}]},
    {"sessionUpdate": "session_message_chunk", "messageId": "m-7", "content": {"type": "text", "text": "…"}},
]  # fmt: skip
TOOL_CALL = {
    "sessionUpdate": "tool_call", "toolCallId": "call_1", "title": "Delegate: explore",
    "kind": "think", "status": "in_progress", "content": [{"type": "session", "sessionId": CHILD}],
}  # fmt: skip


@pytest.mark.parametrize("value", [*SUBAGENT_UPDATES, TOOL_CALL], ids=lambda v: v["sessionUpdate"])
def test_the_checker_accepts_the_stable_subagent_messages(value: dict[str, Any]) -> None:
    WireChecker().check("from_agent", update(value))


def test_the_checker_accepts_subagents_in_initialize_and_session_content_in_an_update() -> None:
    checker = WireChecker()
    checker.check("to_agent", INITIALIZE)
    content = {"type": "session", "sessionId": CHILD, "_meta": {"heron": {}}}
    later = {"sessionUpdate": "tool_call_update", "toolCallId": "call_1", "content": [content]}
    checker.check("from_agent", update(later))
    assert checker.checked == 2


MALFORMED = [
    ("no child id", {"sessionUpdate": "subagent_update", "title": "Explorer"}),
    ("state not an object", {"sessionUpdate": "subagent_update", "sessionId": CHILD, "state": "running"}),
    ("state without its tag", {"sessionUpdate": "subagent_update", "sessionId": CHILD, "state": {}}),
    ("stop reason not a string", {"sessionUpdate": "subagent_update", "sessionId": CHILD, "state": {"state": "idle", "stopReason": 3}}),
    ("error not an error", {"sessionUpdate": "subagent_update", "sessionId": CHILD, "state": {"state": "idle", "stopReason": "error", "error": "boom"}}),
    ("cancel not an object", {"sessionUpdate": "subagent_update", "sessionId": CHILD, "capabilities": {"cancel": True}}),
    ("directories not a list", {"sessionUpdate": "subagent_update", "sessionId": CHILD, "additionalDirectories": "/a"}),
    ("message without an id", {"sessionUpdate": "session_message", "content": []}),
    ("chunk without content", {"sessionUpdate": "session_message_chunk", "messageId": "m-7"}),
    ("session content without a session", {**TOOL_CALL, "content": [{"type": "session"}]}),
]  # fmt: skip


@pytest.mark.parametrize(("why", "value"), MALFORMED, ids=[why for why, _ in MALFORMED])
def test_the_checker_rejects_a_malformed_subagent_message(why: str, value: dict[str, Any]) -> None:
    with pytest.raises(AssertionError, match="does not match the ACP schema"):
        WireChecker().check("from_agent", update(value))


def test_the_checker_rejects_subagents_that_are_not_an_object() -> None:
    bad = copy.deepcopy(INITIALIZE)
    bad["params"]["clientCapabilities"]["subagents"] = True
    with pytest.raises(AssertionError, match="InitializeRequest does not match"):
        WireChecker().check("to_agent", bad)


def test_the_base_alone_would_reject_them() -> None:
    """What the overlay adds: without it the stable base knows no subagent update."""
    base = load(BASE)
    validator = Draft202012Validator(
        {"$ref": "#/$defs/SessionNotification", "$defs": base["$defs"]}
    )
    for value in (SUBAGENT_UPDATES[0], TOOL_CALL):
        assert not validator.is_valid(update(value)["params"]), value["sessionUpdate"]
