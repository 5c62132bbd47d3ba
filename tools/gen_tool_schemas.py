"""Write agent_core/tools/argument_schemas.json: the built-in tools' argument schemas, as pydantic
makes them from their models (``agent_core/tools/arguments.py`` says why they are made ahead).

    python tools/gen_tool_schemas.py           # write the file
    python tools/gen_tool_schemas.py --check   # exit 1 if the file is stale
    python tools/gen_tool_schemas.py --file F  # another file than the package's

The models are every ``Arguments`` subclass of the modules under ``agent_core.tools`` and
``agent_core.delegation``, in the order of their names; each schema keeps pydantic's order, so
that a request's bytes are the ones pydantic's schema gave.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
from pathlib import Path

from pydantic import BaseModel

from agent_core.tools.arguments import MADE, Arguments, schema_key

PACKAGES = ("agent_core.tools", "agent_core.delegation")


def models() -> list[type[BaseModel]]:
    """Every argument model of the built-in tools, once each, in the order of their names."""
    for name in PACKAGES:
        package = importlib.import_module(name)
        for module in pkgutil.walk_packages(package.__path__, f"{name}."):
            importlib.import_module(module.name)
    found: dict[str, type[BaseModel]] = {}
    waiting: list[type[BaseModel]] = [Arguments]
    while waiting:
        for model in waiting.pop().__subclasses__():
            found[schema_key(model)] = model
            waiting.append(model)
    return [found[key] for key in sorted(found)]


def made_table() -> dict[str, dict[str, object]]:
    """Each model's schema by its name in the file."""
    return {schema_key(model): model.model_json_schema() for model in models()}


def main() -> int:
    parser = argparse.ArgumentParser(description="write the tools' argument schemas")
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    parser.add_argument("--file", type=Path, default=MADE, help="the file (default: the package's)")
    args = parser.parse_args()
    made: Path = args.file
    table = made_table()
    text = json.dumps(table, indent=1, ensure_ascii=False) + "\n"
    if args.check:
        current = made.read_text(encoding="utf-8") if made.exists() else ""
        if current != text:
            print(f"{made} is stale: run `make tool-schemas`", file=sys.stderr)
            return 1
        return 0
    made.write_text(text, encoding="utf-8")
    print(f"wrote {made}: {len(table)} schemas")
    return 0


if __name__ == "__main__":
    sys.exit(main())
