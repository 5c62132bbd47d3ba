"""The committed wire types are what the generator makes from the official schema today."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from acp_server.protocol import methods
from tests.support.schema import SCHEMA_DIR, method_defs

REPO = Path(__file__).resolve().parents[1]


def test_committed_files_are_fresh() -> None:
    command = [
        sys.executable, str(REPO / "tools" / "gen_schema.py"), "--check",
        "--schema", str(SCHEMA_DIR / "schema.json"), "--meta", str(SCHEMA_DIR / "meta.json"),
        "--out", str(REPO / "acp_server" / "protocol"),
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_method_table_matches_the_schema_annotations() -> None:
    for method, spec in {**methods.AGENT_METHODS, **methods.CLIENT_METHODS}.items():
        defs = method_defs()[method]
        assert spec.params == defs["params"], method
        assert spec.result == defs.get("result"), method
    assert methods.PROTOCOL_VERSION == 1


def test_importing_the_method_table_does_not_import_pydantic() -> None:
    code = "import sys, acp_server.protocol.methods; print('pydantic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_server_answers_initialize_without_pydantic() -> None:
    code = (
        "import sys, acp_server.server, acp_server.handlers.router, acp_server.handlers.lifecycle;"
        "print(sorted(m for m in ('pydantic', 'agent_core.loop.agent') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_what_session_new_loads_leaves_out_pydantic_and_the_mcp_and_lsp_sdks() -> None:
    """`session/new` builds a session from the PRELOAD modules: they must stay light (pygls
    comes with the first edit a language server covers)."""
    code = (
        "import sys, acp_server.loading as loading, importlib;"
        "[importlib.import_module(m) for m in loading.PRELOAD[: loading.PRELOAD.index('acp_server.bridge.workspace') + 1]];"
        "print(sorted(m for m in ('pydantic', 'mcp', 'agent_core.tools', 'pygls', 'lsprotocol')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
