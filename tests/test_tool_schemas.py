"""The built-in tools' argument schemas are made ahead, and pydantic builds no validator for a
first request: ``agent_core/tools/arguments.py``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import Field, ValidationError

from agent_core.tools import arguments
from agent_core.tools.arguments import Arguments, made_schema
from agent_core.tools.base import arguments_schema
from agent_core.tools.read_file import ReadFileArguments

REPO = Path(__file__).resolve().parents[1]
GENERATOR = REPO / "tools" / "gen_tool_schemas.py"


def test_the_made_schemas_are_what_pydantic_makes_today() -> None:
    result = subprocess.run(
        [sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_a_stale_file_is_found_and_made_again(tmp_path: Path) -> None:
    stale = tmp_path / "argument_schemas.json"
    stale.write_text(arguments.MADE.read_text().replace('"Task"', '"Chore"', 1))
    check = [sys.executable, str(GENERATOR), "--check", "--file", str(stale)]
    result = subprocess.run(check, capture_output=True, text=True)
    assert result.returncode == 1
    assert "is stale: run `make tool-schemas`" in result.stderr
    subprocess.run([sys.executable, str(GENERATOR), "--file", str(stale)], check=True)
    assert stale.read_text() == arguments.MADE.read_text()


FIRST_REQUEST = """
import json
import agent_core.delegation.tool, agent_core.tools.execute_code
import agent_core.tools.memory, agent_core.tools.skill
from agent_core.tools import default_toolset
from agent_core.tools.arguments import Arguments, made_schema, schema_key
from agent_core.tools.base import arguments_schema

models, waiting = {}, [Arguments]
while waiting:
    for model in waiting.pop().__subclasses__():
        models[schema_key(model)] = model
        waiting.append(model)
sent = {tool.name: arguments_schema(tool.arguments) for tool in default_toolset().values()}
for model in models.values():
    arguments_schema(model)
print(json.dumps({
    "models": sorted(models),
    "built": sorted(key for key, model in models.items() if model.__pydantic_complete__),
    "made": sorted(key for key, model in models.items() if made_schema(model) is not None),
    "tools": len(sent),
}))
"""


def test_a_first_request_has_every_schema_without_building_a_validator() -> None:
    out = subprocess.run(
        [sys.executable, "-c", FIRST_REQUEST], capture_output=True, text=True, check=True
    )
    seen = json.loads(out.stdout)
    assert len(seen["models"]) >= 20 and seen["tools"] >= 10
    assert seen["made"] == seen["models"]  # every built-in tool's model is in the file
    assert seen["built"] == []  # nor did a schema make pydantic build a validator


def test_a_deferred_model_still_validates_at_its_first_call() -> None:
    assert ReadFileArguments.model_validate({"path": "a.txt"}).path == "a.txt"
    with pytest.raises(ValidationError):
        ReadFileArguments.model_validate({"path": 3})
    assert arguments_schema(ReadFileArguments) == ReadFileArguments.model_json_schema()


class PluginArguments(Arguments):
    count: int = Field(ge=1, description="How many.")


def test_a_model_the_file_does_not_name_gets_pydantics_schema() -> None:
    assert made_schema(PluginArguments) is None
    assert arguments_schema(PluginArguments) == PluginArguments.model_json_schema()


def test_an_unreadable_file_leaves_the_schemas_to_pydantic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "argument_schemas.json"
    broken.write_text("{not json")
    monkeypatch.setattr(arguments, "MADE", broken)
    arguments._made.cache_clear()  # pyright: ignore[reportPrivateUsage]
    try:
        assert made_schema(ReadFileArguments) is None
    finally:
        arguments._made.cache_clear()  # pyright: ignore[reportPrivateUsage]
