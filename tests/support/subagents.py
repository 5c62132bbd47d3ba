"""Delegation scripted for the fake model server: the parent's `delegate` calls and what each
subagent does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall


def delegate(task: str, **more: Any) -> ToolCall:
    return ToolCall("delegate", {"task": task, **more})


def two_lookups(workspace: Path, fake: FakeLLM) -> None:
    """The parent delegates two lookups in one response (ALPHA-TASK, BETA-TASK); each subagent
    reads its file (alpha.txt, beta.txt) and reports where it found it; the parent sums up."""
    (workspace / "alpha.txt").write_text("alpha lives here\n")
    (workspace / "beta.txt").write_text("beta lives here\n")
    fake.enqueue(
        Reply((delegate("Find ALPHA-TASK"), delegate("Find BETA-TASK"))),
        Reply((Text("Both found."),)),
    )
    for name in ("alpha", "beta"):
        fake.enqueue_for(
            f"{name.upper()}-TASK",
            Reply((ToolCall("read_file", {"path": f"{name}.txt"}),), chunk_delay=0.1),
            Reply((Text(f"{name} is in {name}.txt line 1"),)),
        )
