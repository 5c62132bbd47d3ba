"""What Heron knows about models it has not been told about: context window, images, prices.

Matched by provider and model-id prefix, most specific first; ``[models."<provider>:<model>"]`` in
config.toml overrides any field. Prices are USD per million tokens and are only known when
configured, because they change more often than this table would.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from agent_core.config import ModelSettings, Settings


@dataclass(frozen=True)
class ModelInfo:
    context_window: int = 128_000
    max_output_tokens: int = 8192
    images: bool = False
    input_price: float | None = None  # USD per million input tokens
    output_price: float | None = None
    cache_read_price: float | None = None  # defaults: 10% of input (read), 125% (write)
    cache_write_price: float | None = None

    def cost(
        self, input_tokens: int, output_tokens: int, cache_read: int = 0, cache_write: int = 0
    ) -> float | None:
        if self.input_price is None or self.output_price is None:
            return None
        read = (
            self.cache_read_price if self.cache_read_price is not None else self.input_price * 0.1
        )
        write = (
            self.cache_write_price
            if self.cache_write_price is not None
            else self.input_price * 1.25
        )
        dollars = input_tokens * self.input_price + output_tokens * self.output_price
        return (dollars + cache_read * read + cache_write * write) / 1_000_000


KNOWN: tuple[tuple[str, str, ModelInfo], ...] = (
    ("anthropic", "claude-", ModelInfo(200_000, 16_384, images=True)),
    ("openai", "gpt-5", ModelInfo(400_000, 32_768, images=True)),
    ("openai", "gpt-4.1", ModelInfo(1_047_576, 32_768, images=True)),
    ("openai", "gpt-4o", ModelInfo(128_000, 16_384, images=True)),
    ("openai", "o", ModelInfo(200_000, 32_768, images=True)),
    ("openai-chat", "gpt-", ModelInfo(128_000, 16_384, images=True)),
    ("scripted", "", ModelInfo(200_000, 8192)),
)


def describe(provider: str, model_id: str, overrides: ModelSettings | None = None) -> ModelInfo:
    info = next(
        (i for p, prefix, i in KNOWN if p == provider and model_id.startswith(prefix)), ModelInfo()
    )
    if overrides is None:
        return info
    changes = {k: v for k, v in overrides.fields().items() if v is not None}
    return replace(info, **changes)


class CataloguedModel:
    """What every provider adapter answers from its catalogue entry: name, window, images, cost."""

    provider = ""

    def __init__(self, model_id: str, info: ModelInfo) -> None:
        self.model_id = model_id
        self.info = info

    @property
    def name(self) -> str:
        return f"{self.provider}:{self.model_id}"

    @property
    def context_window(self) -> int:
        return self.info.context_window

    @property
    def accepts_images(self) -> bool:
        return self.info.images

    def cost(
        self, input_tokens: int, output_tokens: int, cache_read: int = 0, cache_write: int = 0
    ) -> float | None:
        return self.info.cost(input_tokens, output_tokens, cache_read, cache_write)


SUGGESTED: dict[str, tuple[str, ...]] = {
    "anthropic": ("claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"),
    "openai": ("gpt-5", "gpt-5-mini", "gpt-4.1"),
}
THINKING_PROVIDERS = ("anthropic", "openai", "openai-chat")


def model_choices(settings: Settings, current: str) -> tuple[str, ...]:
    """The models a session may switch to: the configured ones, then suggestions for every
    provider that has a key."""
    choices = [current, settings.model, *settings.fallback_models, *settings.models]
    for provider, names in SUGGESTED.items():
        if settings.provider(provider).api_key:
            choices += [f"{provider}:{name}" for name in names]
    return tuple(dict.fromkeys(c for c in choices if c))


def takes_thought_level(spec: str) -> bool:
    return spec.partition(":")[0] in THINKING_PROVIDERS
