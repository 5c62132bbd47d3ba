"""What an editor was asked to permit, and a session that asks for nothing (full access)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.editor import FakeEditor


def questions(editor: FakeEditor) -> list[dict[str, Any]]:
    return [r["params"] for r in editor.requests if r["method"] == "session/request_permission"]


def asked_because(question: dict[str, Any]) -> str:
    texts = [
        c["content"]["text"] for c in question["toolCall"].get("content", []) if "content" in c
    ]
    return next((t for t in texts if t.startswith("Asking because")), "")


def full_access(editor: FakeEditor, workspace: Path) -> str:
    """A new session of an initialized ``editor``, in full-access mode: its id."""
    editor.initialize()
    session_id = editor.new_session(workspace)
    editor.request("session/set_mode", {"sessionId": session_id, "modeId": "full-access"})
    editor.drain(quiet=0.1)
    return session_id
