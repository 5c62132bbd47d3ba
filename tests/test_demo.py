"""`heron demo` runs a whole scripted session through a real `heron acp` subprocess."""

from __future__ import annotations

import subprocess
import sys


def test_demo_shows_streamed_thoughts_and_answers(agent_env: dict[str, str]) -> None:
    code = "from acp_server.cli import main; raise SystemExit(main(['demo']))"
    result = subprocess.run(
        [sys.executable, "-c", code], env=agent_env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Connected to Heron" in out
    assert "thinking: The workspace has a README" in out
    assert "This is **greeter**" in out
    assert out.count("[turn ended: end_turn]") == 2
