"""Turn figures against the fake LLM server: loop overhead, first chunk, cancel, first prompt."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.figures import Figure
from bench.startup import peak_rss_mb
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall
from tests.support.raw import RawAgent

ROUND_TRIPS = 20
SAMPLES = 7
MODELS = {"anthropic": "anthropic:claude-bench", "openai-chat": "openai-chat:bench-model"}
FIRST_DELTA = {"anthropic": "content_block_delta", "openai-chat": "chat.completion.chunk"}


def _env(base: dict[str, str], fake: FakeLLM, provider: str) -> dict[str, str]:
    return {
        **base,
        "HERON_MODEL": MODELS[provider],
        "ANTHROPIC_API_KEY": "bench",
        "ANTHROPIC_BASE_URL": fake.url,
        "OPENAI_API_KEY": "bench",
        "OPENAI_BASE_URL": f"{fake.url}/v1",
    }


def _tool_round_trips() -> list[Reply]:
    calls = [Reply((ToolCall("noop", {"i": i}),), chunk_chars=64) for i in range(ROUND_TRIPS)]
    return [*calls, Reply((Text("done"),))]


def _timed_prompt(agent: RawAgent, session_id: str, text: str) -> float:
    started = time.perf_counter()
    agent.prompt(session_id, text)
    return time.perf_counter() - started


def _sdk_round_trips(fake: FakeLLM, provider: str, bodies: list[dict[str, Any]]) -> float:
    """The very requests Heron sent, replayed through the SDK alone: the floor Heron adds to."""
    fake.enqueue(Reply((Text("warm"),)), *_tool_round_trips())
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(bodies, f)
        f.flush()
        command = [sys.executable, "-m", "bench.replay", provider, fake.url, f.name]
        return float(subprocess.run(command, capture_output=True, text=True, check=True).stdout)


def round_trip_overhead(base: dict[str, str], workspace: Path, provider: str) -> Figure:
    """Heron's time per model call minus the SDK's time for the very same requests."""
    overheads, floors = [], []
    with FakeLLM() as fake, RawAgent(_env(base, fake, provider), check_schema=False) as agent:
        agent.initialize()
        fake.enqueue(Reply((Text("warm"),)))
        agent.prompt(agent.new_session(workspace), "warm up")
        for _ in range(3):
            session_id = agent.new_session(workspace)  # equal history in every sample
            fake.enqueue(*_tool_round_trips())
            per_call = _timed_prompt(agent, session_id, "go") / (ROUND_TRIPS + 1)
            floor = _sdk_round_trips(
                fake, provider, [r.body for r in fake.requests[-(ROUND_TRIPS + 1) :]]
            )
            overheads.append(per_call - floor)
            floors.append(floor)
    how = (
        f"{ROUND_TRIPS + 1} model calls per turn, median of 3 turns, minus the same requests "
        f"through the SDK alone ({statistics.median(floors) * 1000:.1f} ms/call)"
    )
    name = f"agent overhead per model round trip ({provider})"
    return Figure(name, statistics.median(overheads) * 1000, "ms", 5, how)


def first_chunk_and_cancel(base: dict[str, str], workspace: Path, provider: str) -> list[Figure]:
    first_chunk: list[float] = []
    cancel: list[float] = []
    with FakeLLM() as fake, RawAgent(_env(base, fake, provider), check_schema=False) as agent:
        agent.initialize()
        session_id = agent.new_session(workspace)
        fake.enqueue(Reply((Text("warm"),)))
        agent.prompt(session_id, "warm up")
        for _ in range(SAMPLES):
            fake.events_sent.clear()
            fake.enqueue(Reply((Text("a streamed answer"),), hold_open=30))
            agent.send(
                {
                    "jsonrpc": "2.0",
                    "id": "p",
                    "method": "session/prompt",
                    "params": {"sessionId": session_id, "prompt": [{"type": "text", "text": "go"}]},
                }
            )
            chunk = agent.wait_for(_is_chunk)
            arrived = next(t for t, m in reversed(agent.arrivals) if m is chunk)
            sent = next(
                t for t, kind in fake.events_sent if kind == FIRST_DELTA[provider] and t > 0
            )
            first_chunk.append(arrived - sent)
            started = time.monotonic()
            agent.notify("session/cancel", {"sessionId": session_id})
            agent.wait_for(lambda m: m.get("id") == "p")
            cancel.append(time.monotonic() - started)
            agent.drain(quiet=0.05)
    return [
        Figure(
            f"first `agent_message_chunk` after the model's first byte ({provider})",
            statistics.median(first_chunk) * 1000,
            "ms",
            5,
            f"median of {SAMPLES}",
        ),
        Figure(
            f"`session/cancel` -> `cancelled` ({provider}, mid-stream)",
            statistics.median(cancel) * 1000,
            "ms",
            50,
            f"median of {SAMPLES}",
        ),
    ]


def first_prompt_of_fresh_process(base: dict[str, str], workspace: Path) -> list[Figure]:
    """Spawn, initialize, open a session and prompt at once: does the SDK import get in the way?"""
    times: list[float] = []
    rss: list[float] = []
    for _ in range(3):
        with (
            FakeLLM() as fake,
            RawAgent(_env(base, fake, "anthropic"), check_schema=False) as agent,
        ):
            agent.initialize()
            session_id = agent.new_session(workspace)
            fake.enqueue(Reply((Text("hello"),)))
            times.append(_timed_prompt(agent, session_id, "hi"))
            rss.append(peak_rss_mb(agent.proc.pid))
    return [
        Figure(
            "first prompt of a fresh process, sent right after `session/new`",
            statistics.median(times) * 1000,
            "ms",
            None,
            "anthropic provider; its SDK (~1 s to import) loads after `session/new`",
        ),
        Figure(
            "peak RSS with the anthropic SDK loaded",
            statistics.median(rss),
            "MB",
            None,
            "VmHWM after the first prompt; the SDK alone is ~75 MB",
        ),
    ]


def _is_chunk(message: dict[str, Any]) -> bool:
    return message.get("params", {}).get("update", {}).get("sessionUpdate") == "agent_message_chunk"


def measure(base: dict[str, str]) -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)
        figures: list[Figure] = []
        for provider in MODELS:
            figures.append(round_trip_overhead(base, workspace, provider))
            figures.extend(first_chunk_and_cancel(base, workspace, provider))
        figures.extend(first_prompt_of_fresh_process(base, workspace))
    return figures
