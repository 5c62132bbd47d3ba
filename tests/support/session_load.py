"""``session/load`` from a raw client: the updates it replayed, and its response."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.raw import RawAgent


def updates_before(agent: RawAgent, request_id: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The updates that arrived before the response to ``request_id``, and the response."""
    updates: list[dict[str, Any]] = []
    while True:
        message = agent.wait_for(lambda m: True)
        if message.get("id") == request_id and "method" not in message:
            return updates, message
        if message.get("method") == "session/update":
            updates.append(message["params"]["update"])


def load(
    agent: RawAgent, session_id: str, cwd: Path
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``session/load``: the updates it replayed, and its response."""
    request_id = f"load-{session_id}"
    params = {"sessionId": session_id, "cwd": str(cwd), "mcpServers": []}
    agent.send({"jsonrpc": "2.0", "id": request_id, "method": "session/load", "params": params})
    return updates_before(agent, request_id)


def reopen(
    agent: RawAgent, session_id: str, cwd: Path
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A fresh process's first view of a stored session: ``initialize``, then ``load``."""
    agent.initialize()
    return load(agent, session_id, cwd)
