"""Guidance by model family, whichever provider serves the model, and by API.

A Claude model reads the same whether Anthropic, Bedrock, Vertex, OpenRouter or a Chat
Completions server serves it, so the family is found from the model's name (``FAMILIES``: one
ordered table of name patterns, first match wins), never from the provider's prefix. What is
truly about the API (Chat Completions carries tool arguments as JSON text the model writes
itself) is kept apart in ``API_GUIDANCE``. Pure.
"""

from __future__ import annotations

import re
from types import MappingProxyType

# Name pattern -> family, tried in order on the model id, lower-cased, at the start of a word
# (after the start, "/", ".", "-", "@", ...): "anthropic/claude-sonnet-4",
# "us.anthropic.claude-3-7-sonnet-v1:0", "claude-sonnet-4@20250514", "o4-mini", "gpt-5".
# DeepSeek's distilled models ("deepseek-r1-distill-qwen") answer like DeepSeek: it comes first.
FAMILIES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(rf"(?<![a-z0-9])(?:{pattern})"), family)
    for pattern, family in (
        ("claude", "claude"),
        (r"gpt|chatgpt|codex|o\d", "gpt"),  # o1, o3, o4-mini: the o-series
        ("gemini", "gemini"),
        ("deepseek", "deepseek"),
        ("qwen|qwq", "qwen"),
        ("(?:code)?llama", "llama"),
        ("mistral|mixtral|ministral|codestral|devstral|magistral|pixtral", "mistral"),
    )
)
FAMILY_GUIDANCE = MappingProxyType(
    {
        "claude": "Think before complex changes; keep answers short and concrete.",
        "gpt": "Be concise. Use the tools rather than guessing file contents.",
        "gemini": "Be concise. Read files with the tools before you describe or change them.",
        "deepseek": "Keep answers short and concrete; use the tools rather than guessing.",
        "qwen": "Keep answers short; use the tools rather than guessing file contents.",
        "llama": "Call only the tools listed, with the arguments their schemas name.",
        "mistral": "Call only the tools listed, with the arguments their schemas name.",
    }
)
API_GUIDANCE = MappingProxyType(
    {"openai-chat": "Call tools with valid JSON arguments."},
)


def family(model_id: str) -> str | None:
    """The family of a model named ``model_id`` (without the provider's prefix), or None."""
    name = model_id.lower()
    return next((family for pattern, family in FAMILIES if pattern.search(name)), None)


def family_guidance(spec: str, api: str = "") -> str:
    """The lines for ``spec`` ("<provider>:<model>") served over ``api`` (one of
    ``providers.APIS``; "": the provider's name, which is its API for the built-in ones)."""
    provider, _, model_id = spec.partition(":")
    found = family(model_id)
    lines = [
        FAMILY_GUIDANCE.get(found, "") if found else "",
        API_GUIDANCE.get(api or provider, ""),
    ]
    return " ".join(line for line in lines if line)
