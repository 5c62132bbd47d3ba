"""`execute_code` figures: what starting a script costs, and what each tool call it makes costs."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from bench.figures import Figure
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall
from tests.support.raw import RawAgent

CALLS = 40
SAMPLES = 5


def _script(calls: int) -> str:
    return (
        "import heron_tools\n"
        f"for _ in range({calls}):\n"
        "    heron_tools.read_file(path='README.md')\n"
        "print('done')\n"
    )


def _timed(agent: RawAgent, session_id: str, fake: FakeLLM, replies: list[Reply]) -> float:
    fake.enqueue(*replies)
    started = time.perf_counter()
    stop, _ = agent.prompt(session_id, "go")
    assert stop == "end_turn"
    return time.perf_counter() - started


def measure(base: dict[str, str]) -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp, FakeLLM() as fake:
        workspace = Path(tmp)
        (workspace / "README.md").write_text("# bench\n" * 50)
        env = {
            **base,
            "HERON_MODEL": "anthropic:claude-bench",
            "ANTHROPIC_API_KEY": "bench",
            "ANTHROPIC_BASE_URL": fake.url,
            "HERON_MODE": "full-access",
        }
        with RawAgent(env, check_schema=False) as agent:
            agent.initialize({})
            session_id = agent.new_session(workspace)
            done = Reply((Text("ok"),))
            _timed(
                agent,
                session_id,
                fake,
                [Reply((ToolCall("execute_code", {"code": _script(1)}),)), done],
            )
            plain, empty, busy = [], [], []
            for _ in range(SAMPLES):
                plain.append(
                    _timed(agent, session_id, fake, [Reply((ToolCall("find_files", {}),)), done])
                )
                script = Reply((ToolCall("execute_code", {"code": _script(0)}),))
                empty.append(_timed(agent, session_id, fake, [script, done]))
                script = Reply((ToolCall("execute_code", {"code": _script(CALLS)}),))
                busy.append(_timed(agent, session_id, fake, [script, done]))
    start_cost = statistics.median(empty) - statistics.median(plain)
    per_call = (statistics.median(busy) - statistics.median(empty)) / CALLS
    return [
        Figure(
            "`execute_code`: a script's start (temp dir, socket, interpreter) over a direct call",
            start_cost * 1000,
            "ms",
            None,
            f"median of {SAMPLES}; a script with no tool calls vs one find_files call",
        ),
        Figure(
            "`execute_code`: each tool call a script makes",
            per_call * 1000,
            "ms",
            None,
            f"median of {SAMPLES} scripts of {CALLS} read_file calls, minus an empty script; "
            "includes its tool_call updates to the editor",
        ),
    ]
