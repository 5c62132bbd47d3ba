"""Turn figures against the fake LLM server: the first chunk's delay, and cancel."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.figures import Figure
from tests.support.fake_llm import FakeLLM, Reply, Text
from tests.support.raw import RawAgent

SAMPLES = 7
MODELS = {"anthropic": "anthropic:claude-bench", "openai-chat": "openai-chat:bench-model"}
FIRST_DELTA = {"anthropic": "content_block_delta", "openai-chat": "chat.completion.chunk"}


def _env(base: dict[str, str], fake: FakeLLM, provider: str) -> dict[str, str]:
    return {**base, **fake.environment(MODELS[provider])}


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
            while True:  # a late chunk of the prompt cancelled before may come first
                chunk = agent.wait_for(_is_chunk)
                arrived = next(t for t, m in reversed(agent.arrivals) if m is chunk)
                sent = next(
                    (t for t, kind in fake.events_sent if kind == FIRST_DELTA[provider] and t > 0),
                    None,
                )
                if sent is not None and arrived >= sent:
                    break
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


def _is_chunk(message: dict[str, Any]) -> bool:
    return message.get("params", {}).get("update", {}).get("sessionUpdate") == "agent_message_chunk"


def measure(base: dict[str, str]) -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)
        figures: list[Figure] = []
        for provider in MODELS:
            figures.extend(first_chunk_and_cancel(base, workspace, provider))
    return figures
