"""What Heron knows about a model: context window, output limit, images, prices.

Three sources, each figure from the first that has it: ``[models."<provider>:<model>"]`` in
config.toml, then the models.dev data (``known.py``, read once a session exists), then the
built-in table below (matched by provider and model-id prefix, most specific first), which has
no prices. Prices are USD per million tokens. ``ModelInfo.sources`` says where each figure came
from (``heron models`` shows it).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from agent_core.models import known
from agent_core.models.settings import ModelSettings

CONFIG, DEFAULT = "config", "default"
FIGURES = (
    "context_window",
    "max_output_tokens",
    "images",
    "input_price",
    "output_price",
    "cache_read_price",
    "cache_write_price",
)


class ModelInfo(NamedTuple):
    context_window: int = 128_000
    max_output_tokens: int = 8192
    images: bool = False
    input_price: float | None = None  # USD per million input tokens
    output_price: float | None = None
    cache_read_price: float | None = None  # defaults: 10% of input (read), 125% (write)
    cache_write_price: float | None = None
    # Where each figure came from (CONFIG, known.SOURCE or DEFAULT), and what it was asked as.
    sources: Mapping[str, str] = MappingProxyType({})
    asked: tuple[str, str, ModelSettings | None] | None = None
    complete: bool = True  # False: described before models.dev

    def refined(self) -> ModelInfo:
        """Described again once the models.dev data is loaded, if it was not before."""
        if self.complete or self.asked is None or not known.loaded():
            return self
        return describe(*self.asked)

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
    """Never reads the models.dev data itself: before ``known.load`` the answer is provisional
    (``refined`` completes it)."""
    info = next(
        (i for p, prefix, i in KNOWN if p == provider and model_id.startswith(prefix)), ModelInfo()
    )
    sources: dict[str, str] = dict.fromkeys(FIGURES, DEFAULT)
    changes: dict[str, object] = {}
    figures = known.lookup(provider, model_id)
    for name, value in figures.given().items() if figures else ():
        changes[name], sources[name] = value, known.SOURCE
    for name, value in overrides.fields().items() if overrides else ():
        if value is not None:
            changes[name], sources[name] = value, CONFIG
    changes.update(sources=MappingProxyType(sources), complete=known.loaded())
    return info._replace(**changes, asked=(provider, model_id, overrides))


class CataloguedModel:
    """What every provider adapter answers from its catalogue entry: name, window, images, cost."""

    provider = ""

    def __init__(self, model_id: str, info: ModelInfo) -> None:
        self.model_id = model_id
        self._info = info

    @property
    def info(self) -> ModelInfo:
        """The catalogue entry, completed from the models.dev data once that is loaded."""
        if not self._info.complete and known.loaded():
            self._info = self._info.refined()
        return self._info

    def learn(self) -> None:
        """Load the models.dev data (blocking, once per process): call it off the loop."""
        known.load()

    async def learned(self) -> None:
        """The models.dev data loaded before a request (by the warm-up, which this waits for,
        or here, off the loop), so that even a first response's usage has its cost."""
        if not known.loaded():
            import anyio  # not at import: the front door describes the model before the loop

            await anyio.to_thread.run_sync(known.load)

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
