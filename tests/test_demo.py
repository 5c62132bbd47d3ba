"""`heron demo`: the terminal client drives a real `heron acp` subprocess."""

from __future__ import annotations

import compileall
import subprocess
import sys
from pathlib import Path

import acp_server


def heron(
    args: list[str], env: dict[str, str], cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    code = f"from acp_server.cli import main; raise SystemExit(main({args!r}))"
    command = [sys.executable, "-c", code]
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=60)


def test_demo_shows_streamed_thoughts_and_answers(agent_env: dict[str, str]) -> None:
    # As an installation does: its sample project's byte-code must not show in the demo.
    compileall.compile_dir(Path(acp_server.__file__).parent / "demo_project", quiet=1)
    result = heron(["demo"], agent_env)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Connected to Heron" in out
    assert "thinking: Let me look at what is in the workspace first." in out
    assert "HELLO, ADA!" in out  # the edit was applied and the command ran
    assert "This is **greeter**" in out
    assert out.count("[turn ended: end_turn]") == 2
    assert "__pycache__" not in out
