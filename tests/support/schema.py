"""Validates every ACP message, in both directions, against the official JSON schema."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

REPO = Path(__file__).resolve().parents[2]
SCHEMA_DIR = Path(os.environ.get("HERON_SCHEMA_DIR") or REPO / "vendor" / "acp-schema")
if not SCHEMA_DIR.is_absolute():
    SCHEMA_DIR = (REPO / SCHEMA_DIR).resolve()


@cache
def schema() -> dict[str, Any]:
    path = SCHEMA_DIR / "schema.json"
    if not path.is_file():
        raise FileNotFoundError(f"the ACP schema is not at {path} (vendor/acp-schema)")
    return json.loads(path.read_text())


@cache
def validator(def_name: str) -> Draft202012Validator:
    root = schema()
    return Draft202012Validator({"$ref": f"#/$defs/{def_name}", "$defs": root["$defs"]})


@cache
def method_defs() -> dict[str, dict[str, str]]:
    """method -> {"params": def name, "result": def name} from the x-method annotations."""
    table: dict[str, dict[str, str]] = {}
    for name, definition in schema()["$defs"].items():
        method = definition.get("x-method")
        if method:
            role = "result" if name.endswith("Response") else "params"
            table.setdefault(method, {})[role] = name
    return table


def check_def(def_name: str, value: Any) -> None:
    errors = sorted(validator(def_name).iter_errors(value), key=lambda e: list(e.path))
    if errors:
        detail = "; ".join(f"{list(e.path)}: {e.message[:200]}" for e in errors[:3])
        raise AssertionError(
            f"{def_name} does not match the ACP schema: {detail}\n{json.dumps(value)[:2000]}"
        )


@dataclass
class WireChecker:
    """Feed it every message with its direction; it checks each against the schema.

    Requests are remembered by id so responses are checked against the right result type.
    Unknown and ``_``-prefixed methods are checked for JSON-RPC shape only.
    """

    pending: dict[tuple[str, Any], str] = field(default_factory=dict)
    checked: int = 0

    def check(self, direction: str, message: dict[str, Any]) -> None:
        assert message.get("jsonrpc") == "2.0", message
        self.checked += 1
        if "method" in message:
            method = message["method"]
            if "id" in message:
                self.pending[(direction, message["id"])] = method
            definition = method_defs().get(method, {}).get("params")
            if definition:
                check_def(definition, message.get("params"))
            return
        request_direction = "to_agent" if direction == "from_agent" else "from_agent"
        method = self.pending.pop((request_direction, message.get("id")), None)
        assert ("result" in message) != ("error" in message), message
        if "error" in message:
            error = message["error"]
            assert isinstance(error["code"], int) and isinstance(error["message"], str), message
            assert error["message"] and "\n" not in error["message"], message
            return
        definition = method_defs().get(method or "", {}).get("result")
        if definition:
            check_def(definition, message["result"])
