"""Starting a subagent: from the end of the parent's response that asks for it to the child's
first model request arriving at the model server. That is the parent's handling of its
response, the ``delegate`` call's start (the child's tools, model and system prompt) and the
child's request building, SDK and HTTP."""

from __future__ import annotations

import statistics
from pathlib import Path

from bench.figures import Figure
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall
from tests.support.raw import RawAgent

RUNS = 15
MODEL = "anthropic:claude-bench"


def measure(env: dict[str, str], workspace: Path) -> list[Figure]:
    gaps: list[float] = []
    with (
        FakeLLM() as fake,
        RawAgent({**env, **fake.environment(MODEL)}, check_schema=False) as client,
    ):
        client.initialize()
        session_id = client.new_session(workspace)
        for run in range(RUNS):
            task = f"BENCH-TASK-{run}: list the files"
            fake.enqueue(Reply((ToolCall("delegate", {"task": task}),)))
            fake.enqueue_for(task, Reply((Text("There is one file."),)))
            fake.enqueue(Reply((Text("Done."),)))
            before = len(fake.requests)
            client.prompt(session_id, f"run {run}: delegate")
            parent, child = fake.requests[before], fake.requests[before + 1]
            gaps.append(child.started_at - fake.finished(parent))
    return [
        Figure(
            "starting a subagent, to its first model request",
            statistics.median(gaps) * 1000,
            "ms",
            20,
            f"anthropic; end of the parent's response -> the child's request at the model "
            f"server; median of {RUNS}, one session",
        )
    ]
