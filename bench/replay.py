"""Replays recorded request bodies through a provider SDK alone, in its own process.

``python -m bench.replay <provider> <base url> <bodies.json>`` prints the mean seconds per
call. Running apart from the fake server's process keeps the two from sharing one GIL, as
Heron's own process does not share it either.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import anyio


async def replay(provider: str, url: str, bodies: list[dict[str, Any]]) -> float:
    if provider == "anthropic":
        import anthropic

        client = anthropic.AsyncAnthropic(api_key="bench", base_url=url, max_retries=0)
        started = 0.0
        for index, body in enumerate([bodies[-1], *bodies]):  # the first call warms the SDK up
            started = started or (time.perf_counter() if index else 0.0)
            async for _event in await client.messages.create(**body):
                pass
    else:
        import openai

        chat = openai.AsyncOpenAI(api_key="bench", base_url=f"{url}/v1", max_retries=0)
        started = 0.0
        for index, body in enumerate([bodies[-1], *bodies]):  # the first call warms the SDK up
            started = started or (time.perf_counter() if index else 0.0)
            async for _chunk in await chat.chat.completions.create(**body):
                pass
    return (time.perf_counter() - started) / len(bodies)


if __name__ == "__main__":
    provider, url, path = sys.argv[1:4]
    bodies = json.loads(Path(path).read_text())
    sys.stdout.write(f"{anyio.run(replay, provider, url, bodies)}\n")
