"""Long sessions: the agent's own time per model round trip at turn 10 and at turn 200.

Each turn is one prompt and one ~1 KB streamed reply from the fake model server, so the
conversation grows by ~1 KB a turn. The agent's time is what the editor waits for, less the
time the model server spent on the request (from reading it to its last byte): request
building, the SDK, HTTP, the stream's parsing, the updates to the editor and the store.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from pathlib import Path

from bench.figures import Figure
from bench.startup import pointed_at
from tests.support.fake_llm import FakeLLM, Reply, Text
from tests.support.raw import RawAgent

TURNS = 200
WINDOW = 10  # turns either side of a figure's turn, for a median
REPLY = " ".join(f"word{i}" for i in range(170))  # ~1 KB
MODELS = {
    "anthropic": "anthropic:claude-bench",
    "openai": "openai:gpt-bench",
    "openai-chat": "openai-chat:bench-model",
}


def agent_times(
    env: dict[str, str], workspace: Path, provider: str, turns: int, agent: Sequence[str]
) -> list[float]:
    """Seconds of the agent's own time, per turn of one session."""
    with FakeLLM() as fake:
        run_env = {**env, **fake.environment(MODELS[provider])}
        with RawAgent(run_env, check_schema=False, command=pointed_at(agent, fake.url)) as client:
            return prompt_times(client, fake, workspace, turns)


def prompt_times(client: RawAgent, fake: FakeLLM, workspace: Path, turns: int) -> list[float]:
    """Seconds of the agent's own time for each of ``turns`` prompts of a new session, each
    answered with a ~1 KB reply: what the editor waits for, less the model server's time."""
    client.initialize()
    session_id = client.new_session(workspace)
    times: list[float] = []
    for turn in range(turns):
        fake.enqueue(Reply((Text(REPLY),), chunk_chars=120))
        started = time.perf_counter()
        client.prompt(session_id, f"turn {turn}: go on")
        waited = time.perf_counter() - started
        record = fake.requests[-1]
        times.append(waited - (fake.finished(record) - record.started_at))
    return times


def measure(env: dict[str, str], workspace: Path, agent: Sequence[str]) -> list[Figure]:
    figures: list[Figure] = []
    for provider in MODELS:
        times = agent_times(env, workspace, provider, TURNS, agent)
        early = statistics.median(times[5 : 5 + WINDOW]) * 1000
        late = statistics.median(times[-WINDOW:]) * 1000
        how = f"~1 KB replies; median of turns {TURNS - WINDOW + 1}-{TURNS}; editor-observed time "
        how += f"minus the model server's own; turn 10: {early:.1f} ms"
        figures.append(
            Figure(f"agent time per round trip at turn {TURNS} ({provider})", late, "ms", 8, how)
        )
        figures.append(
            Figure(
                f"turn {TURNS} over turn 10 ({provider})",
                late / early,
                "x",
                1.2,
                "the same session; flat means the cost does not grow with the conversation",
            )
        )
    return figures
