"""What a test scripts the fake LLM to answer: a streamed ``Reply`` of ``Text``, ``Reasoning`` and
``ToolCall`` items, or an HTTP ``Failure``; and ``MODELS``, a model of each provider API.

``tests.support.fake_llm`` serves them; ``tests.support.llm_streams`` writes them in each
provider's wire format.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Stop = Literal["end_turn", "max_tokens", "tool_use", "refusal"]
JSON = dict[str, Any]


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Reasoning:
    """Anthropic thinking, OpenAI reasoning summary, Chat ``reasoning_content`` (or the field
    ``chat_field`` names: OpenRouter and Ollama stream ``reasoning``)."""

    text: str
    chat_field: str = "reasoning_content"


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: JSON
    call_id: str | None = None  # generated (toolu_… / call_…) when None


@dataclass(frozen=True)
class Reply:
    """One streamed model response. ``stop=None`` means tool_use if any ToolCall, else end_turn.

    ``hold_open`` pauses before the closing events (Anthropic ``message_delta``, Responses
    ``response.completed``, Chat's ``finish_reason`` chunk): the content is out but the stream
    has not finished, so a client can cancel mid-stream. ``linger`` pauses after the last
    event, before the body's end, as a server (or a proxy) slow to end it. A client hang-up
    ends either pause.
    """

    items: tuple[Text | Reasoning | ToolCall, ...]
    stop: Stop | None = None
    chunk_chars: int = 8
    chunk_delay: float = 0.0
    usage: tuple[int, int] = (100, 20)
    cut_after_events: int | None = None
    hold_open: float = 0.0
    linger: float = 0.0


@dataclass(frozen=True)
class Failure:
    """An HTTP error in the provider's error body shape instead of a stream."""

    status: int
    retry_after: float | None = None
    message: str = "fake failure"
    code: str | None = None  # the body's error type (Anthropic) or code and type (OpenAI)


MODELS = {  # a model of each provider API, as the tests name them to Heron
    "anthropic": "anthropic:claude-sonnet-4-5",
    "openai": "openai:gpt-5",
    "openai-chat": "openai-chat:qwen3-coder",
}


def stop_of(reply: Reply) -> Stop:
    """How ``reply`` ends: its ``stop``, else tool_use if it calls a tool, else end_turn."""
    if reply.stop is not None:
        return reply.stop
    return "tool_use" if any(isinstance(i, ToolCall) for i in reply.items) else "end_turn"
