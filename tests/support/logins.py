"""Logging in and out as a user does: `heron login` run for real, and the raw requests the tests
of login and logout send (their answers whole, errors included)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.raw import RawAgent

HERON = str(Path(sys.executable).parent / "heron")


def heron_login(env: dict[str, str], provider: str, key: str) -> None:
    done = subprocess.run(
        [HERON, "login", "--provider", provider],
        env=env,
        input=f"{key}\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def new_session(agent: RawAgent, workspace: Path) -> dict[str, Any]:
    return agent.request("session/new", {"cwd": str(workspace), "mcpServers": []})


def prompt(agent: RawAgent, session_id: str, text: str) -> dict[str, Any]:
    params = {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
    return agent.request("session/prompt", params)
