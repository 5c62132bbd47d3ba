"""What ``heron models`` lists: every model Heron knows figures for, and where each came from."""

from __future__ import annotations

from agent_core.models import known
from agent_core.models.catalog import CONFIG, DEFAULT, FIGURES, ModelInfo, describe
from agent_core.models.settings import ConfiguredModels

LISTED = ("anthropic", "openai")  # the providers whose whole catalogue is listed unasked


def known_models(settings: ConfiguredModels, wanted: str = "") -> list[tuple[str, ModelInfo]]:
    """``(provider:model, figures)`` sorted by name: the configured models, and the models.dev
    catalogue of each provider (a Chat Completions server's only when ``wanted`` filters it);
    ``wanted`` keeps the names that contain it, whatever the case. Reads the models.dev data."""
    known.load()
    specs = {s for s in (settings.model, *settings.fallback_models, *settings.models) if s}
    for provider in known.CATALOGUES:
        if provider in LISTED or wanted:
            specs |= {f"{provider}:{model}" for model in known.models_of(provider)}
    needle = wanted.lower()
    listed: list[tuple[str, ModelInfo]] = []
    order = {provider: n for n, provider in enumerate(known.CATALOGUES)}
    for spec in sorted(specs, key=lambda s: (order.get(s.partition(":")[0], 9), s)):
        provider, _, model = spec.partition(":")
        if model and needle in spec.lower() and provider != "scripted":
            listed.append((spec, describe(provider, model, settings.models.get(spec))))
    return listed


def origin(info: ModelInfo) -> str:
    """Where the figures came from, in a few words: "models.dev", "config (prices), models.dev
    (window, output, images)"; a figure nobody gave (a price) is left out."""
    by_source: dict[str, list[str]] = {}
    for name in FIGURES:
        if getattr(info, name) is not None:
            by_source.setdefault(info.sources.get(name, DEFAULT), []).append(name)
    if len(by_source) == 1:
        return _label(next(iter(by_source)))
    parts: list[str] = []
    for source in (CONFIG, known.SOURCE, DEFAULT):
        names = by_source.get(source)
        if names:
            parts.append(f"{_label(source)} ({_short(names)})")
    return ", ".join(parts)


def _label(source: str) -> str:
    return "built-in" if source == DEFAULT else source


def _short(names: list[str]) -> str:
    words = {
        "context_window": "window",
        "max_output_tokens": "output",
        "images": "images",
        "input_price": "input price",
        "output_price": "output price",
        "cache_read_price": "cache read",
        "cache_write_price": "cache write",
    }
    if all(n.endswith("_price") for n in names) and len(names) == 4:
        return "prices"
    return ", ".join(words[n] for n in names)
