"""An offline, deterministic model that plays a script: for the demo, the tests and offline work.

``HERON_MODEL=scripted:<name>`` plays ``agent_core/models/scripts/<name>.json``;
``scripted:/abs/path.json`` plays any file. A script is a list of rules, tried in order against
the text of the user's latest prompt::

    {"rules": [{"match": "regex", "replies": [[step, ...], [step, ...]]}], "chunk_delay": 0.0}

The n-th model call of a turn plays the n-th reply of the first matching rule (the last reply
once they run out). Steps: ``{"text": s}`` and ``{"thinking": s}`` stream ``s`` word by word;
``{"echo": prefix}`` streams the prompt back after ``prefix``; ``{"tool_call": {"name": n,
"arguments": {...}}}``; ``{"sleep": seconds}``; ``{"finish": "max_tokens" | "refusal"}``.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from importlib import resources
from pathlib import Path
from typing import Any, cast

import anyio
from msgspec import Struct

from agent_core.errors import ModelConfigError
from agent_core.messages import (
    AssistantMessage,
    AssistantPart,
    Message,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    Usage,
    UserMessage,
)
from agent_core.models.base import (
    FinishReason,
    ModelRequest,
    ResponseCompleted,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolArgumentsDelta,
    ToolCallBegan,
)

Step = dict[str, Any]


class Rule(Struct, frozen=True):
    pattern: re.Pattern[str]
    replies: tuple[tuple[Step, ...], ...]


class ScriptedModel:
    def __init__(self, script_name: str, rules: tuple[Rule, ...], chunk_delay: float) -> None:
        self._name = f"scripted:{script_name}"
        self._rules = rules
        self._chunk_delay = chunk_delay

    @classmethod
    def load(cls, script: str) -> ScriptedModel:
        """Load a shipped script by name, or a script file by absolute path."""
        try:
            if Path(script).is_absolute():
                text = Path(script).read_text(encoding="utf-8")
            else:
                text = (
                    resources.files("agent_core.models")
                    .joinpath(f"scripts/{script}.json")
                    .read_text(encoding="utf-8")
                )
        except (OSError, ValueError) as exc:
            raise ModelConfigError(f"no scripted model script {script!r}: {exc}") from exc
        try:
            data = json.loads(text)
            rules = tuple(
                Rule(
                    re.compile(rule["match"], re.IGNORECASE | re.DOTALL),
                    tuple(tuple(reply) for reply in rule["replies"]),
                )
                for rule in data["rules"]
            )
            return cls(script, rules, float(data.get("chunk_delay", 0.0)))
        except (ValueError, KeyError, TypeError, re.error) as exc:
            raise ModelConfigError(f"scripted model script {script!r} is malformed: {exc}") from exc

    @property
    def name(self) -> str:
        return self._name

    @property
    def context_window(self) -> int:
        return 200_000

    @property
    def accepts_images(self) -> bool:
        return False

    def warm_up(self) -> None:
        return None

    async def connect_ahead(self) -> None:
        return None  # no server

    def cost(
        self, input_tokens: int, output_tokens: int, cache_read: int = 0, cache_write: int = 0
    ) -> float | None:
        return None

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        prompt, calls_this_turn = _turn_position(request.messages)
        reply = self._reply_for(prompt, calls_this_turn)
        if request.tool_choice == "none":  # as a real model would: answer in words only
            reply = tuple(s for s in reply if "tool_call" not in s) or ({"text": NO_TOOLS},)
        parts: list[AssistantPart] = []
        finish: FinishReason = "end_turn"
        for step in reply:
            if "text" in step or "echo" in step:
                text = step["text"] if "text" in step else f"{step['echo']}{prompt}"
                async for chunk in self._chunks(text):
                    yield TextDelta(chunk)
                parts.append(TextPart(text))
            elif "thinking" in step:
                async for chunk in self._chunks(step["thinking"]):
                    yield ThinkingDelta(chunk)
                parts.append(ThinkingPart(step["thinking"]))
            elif "tool_call" in step:
                call = cast(dict[str, Any], step["tool_call"])
                call_id = f"call_{uuid.uuid4().hex[:12]}"  # unique, as a provider's are
                yield ToolCallBegan(call_id, call["name"])
                arguments = json.dumps(call.get("arguments", {}))
                yield ToolArgumentsDelta(call_id, arguments)
                parts.append(ToolCallPart(call_id, call["name"], call.get("arguments", {})))
                finish = "tool_use"
            elif "sleep" in step:
                await anyio.sleep(float(step["sleep"]))
            elif "finish" in step:
                finish = step["finish"]
        output_tokens = sum(len(getattr(p, "text", "").split()) for p in parts)
        usage = Usage(input_tokens=_estimate_tokens(request), output_tokens=output_tokens)
        yield ResponseCompleted(AssistantMessage(tuple(parts)), finish, usage)

    def _reply_for(self, prompt: str, call_index: int) -> tuple[Step, ...]:
        for rule in self._rules:
            if rule.pattern.search(prompt):
                return rule.replies[min(call_index, len(rule.replies) - 1)]
        return ({"text": "(the script has no reply for this prompt)"},)

    async def _chunks(self, text: str) -> AsyncIterator[str]:
        for chunk in _words(text):
            if self._chunk_delay:
                await anyio.sleep(self._chunk_delay)
            else:
                await anyio.lowlevel.checkpoint()
            yield chunk


NO_TOOLS = "(the script has no reply without tools)"


def _turn_position(messages: tuple[Message, ...]) -> tuple[str, int]:
    """The latest prompt's text and how many model calls this turn has made before this one."""
    calls = 0
    for message in reversed(messages):
        if isinstance(message, UserMessage) and message.text:
            return message.text, calls
        if isinstance(message, AssistantMessage):
            calls += 1
    return "", calls


def _words(text: str) -> Iterator[str]:
    """Split keeping the spaces, so the chunks join back to the text."""
    yield from re.findall(r"\S+\s*|\s+", text)


def _estimate_tokens(request: ModelRequest) -> int:
    chars = len(request.system) + sum(len(str(m)) for m in request.messages)
    return chars // 4
