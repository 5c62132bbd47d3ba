"""docs/PROTOCOL.md stays true: the tests it names exist, and every method Heron routes and every
method and session update kind of the vendored schema has a row."""

from __future__ import annotations

import json
import re
from pathlib import Path

from acp_server.handlers.router import NOTIFICATIONS, REQUESTS

REPO = Path(__file__).resolve().parents[1]
DOC = (REPO / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
SCHEMA_DIR = REPO / "vendor" / "acp-schema"


def named_in_doc() -> set[str]:
    return set(re.findall(r"`([^`\s]+)`", DOC))


def test_every_test_the_doc_names_exists() -> None:
    named = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", DOC)
    assert named
    missing = []
    for path, name in sorted(set(named)):
        file = REPO / path
        source = file.read_text(encoding="utf-8") if file.is_file() else ""
        if not re.search(rf"^\s*(async )?def {name}\(", source, re.MULTILINE):
            missing.append(f"{path}::{name}")
    assert missing == [], "docs/PROTOCOL.md names tests that are gone"


def test_every_routed_method_has_a_row() -> None:
    assert set(REQUESTS) | set(NOTIFICATIONS) <= named_in_doc()


def test_every_method_and_update_kind_of_the_schema_has_a_row() -> None:
    meta = json.loads((SCHEMA_DIR / "meta.json").read_text(encoding="utf-8"))
    methods = {
        name
        for table in ("agentMethods", "clientMethods", "protocolMethods")
        for name in meta[table].values()
    }
    schema = json.loads((SCHEMA_DIR / "schema.json").read_text(encoding="utf-8"))
    union = schema["$defs"]["SessionUpdate"]
    kinds = {v["properties"]["sessionUpdate"]["const"] for v in union["oneOf"]}
    assert "subagent_update" in kinds
    text = named_in_doc()
    doc_methods = text | {m for row in text for m in re.findall(r"[\w$/]+", row)}
    assert methods - doc_methods == set()
    assert kinds - text == set()
