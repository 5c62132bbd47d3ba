"""Files Heron writes whole or not at all: a temporary file beside the target, then a rename, so
a crash or a full disk never leaves half a file where a reader expects a whole one."""

from __future__ import annotations

import os
from pathlib import Path


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` (its folder made if missing); raises ``OSError``."""
    import tempfile  # not on the start-up path: the module is imported before any write

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".heron-tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
