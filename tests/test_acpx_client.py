"""End to end with acpx, a third independent ACP client, whose own fs and terminal serve Heron."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.scripted_model import call, scripted

ACPX = Path(__file__).parent / "node" / "node_modules" / ".bin" / "acpx"

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not ACPX.exists(),
    reason="needs node and `npm install --prefix tests/node` (make test does both)",
)


def test_acpx_drives_an_edit_and_a_command_through_its_own_fs_and_terminal(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    (workspace / "notes.txt").write_text("draft\n")
    env = scripted(
        agent_env,
        tmp_path,
        call("read_file", path="notes.txt"),
        call("edit_file", path="notes.txt", edits=[{"old_string": "draft", "new_string": "final"}]),
        call("terminal", command="echo ran-in-acpx"),
    )
    agent = f"{sys.executable} -m acp_server"
    command = [
        str(ACPX),
        "--agent",
        agent,
        "--cwd",
        str(workspace),
        "--approve-all",
        "--format",
        "json",
        "--timeout",
        "60",
        "exec",
        "finish the notes",
    ]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    messages: list[dict[str, Any]] = [
        json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")
    ]
    asked_of_acpx = [
        m["method"] for m in messages if m.get("method", "").startswith(("fs/", "terminal/"))
    ]
    assert "fs/read_text_file" in asked_of_acpx and "fs/write_text_file" in asked_of_acpx
    assert "terminal/create" in asked_of_acpx and asked_of_acpx[-1] == "terminal/release"
    assert (workspace / "notes.txt").read_text() == "final\n"  # written by acpx, for Heron
    assert any("ran-in-acpx" in json.dumps(m) for m in messages)
