"""The approval modes: what the agent may do without asking. Names only; the policy is in
``approvals``. Kept apart so the start-up path can describe modes without loading the policy."""

from __future__ import annotations

from typing import Literal

Mode = Literal["ask", "accept-edits", "plan", "full-access"]
MODE_NAMES: dict[Mode, tuple[str, str]] = {
    "ask": ("Ask", "Edits and commands need your approval"),
    "accept-edits": ("Accept edits", "Edits apply at once; commands need your approval"),
    "plan": ("Plan", "Read-only: the agent reads and plans, and asks to leave plan mode"),
    "full-access": (
        "Full access",
        "No prompts, except dangerous commands and paths outside the workspace",
    ),
}
MODES: tuple[Mode, ...] = tuple(MODE_NAMES)
