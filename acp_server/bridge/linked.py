"""What a prompt's ``file://`` links hold (an @-mention the editor did not embed): the text of a
file, or a folder's names, put in the prompt as context.

Such a link points into a repository, which is untrusted input: a mentioned ``notes.md`` may be a
link to ``~/.ssh/id_rsa`` or a FIFO. So it is read as Heron reads every file it opens on its own
(``safety/safe_open.py``): inside the session's roots once its links are resolved (as the file
tools are), a regular file, capped, never blocking, in a worker thread. What cannot be read so
is named in the prompt and in a notice, with why; its content is not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple
from urllib.parse import unquote, urlparse

import anyio

from agent_core.safety.safe_open import UnsafeFile, list_inside, read_inside

MAX_LINKED_BYTES = 256 * 1024
MAX_LISTED = 1000  # names of a linked folder
LINE_RANGE = re.compile(r"L(\d+)(?:[-:]L?(\d+))?")


class Linked(NamedTuple):
    text: str  # what the prompt carries for the link
    problem: str | None = None  # why it was not read, for a notice


async def read_linked(uri: str, roots: Sequence[Path]) -> Linked:
    """The text behind a ``file://`` link, capped; a short explanation when there is none."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return Linked(f"(a {parsed.scheme or 'relative'} link; not fetched)")
    path = Path(unquote(parsed.path))
    return await anyio.to_thread.run_sync(_read, path, parsed.fragment, tuple(roots))


def _read(path: Path, fragment: str, roots: tuple[Path, ...]) -> Linked:
    try:
        if path.is_dir():  # where it leads is checked by the listing
            listing = list_inside(path, roots, MAX_LISTED)
            more = "\n…" if listing.cut else ""
            return Linked(
                "directory listing:\n" + "\n".join(p.name for p in listing.entries) + more
            )
        read = read_inside(path, roots, MAX_LINKED_BYTES)
    except UnsafeFile as exc:
        return Linked(f"(not read: {exc})", f"{path}: {exc}")
    except OSError as exc:
        return Linked(f"(cannot read {path}: {exc.strerror})")
    from agent_core.tools.images import sniff

    if picture := sniff(read.data):
        return Linked(f"({picture.describe(read.size)}; read_file shows it)")
    if b"\0" in read.data[:8192]:
        return Linked("(binary file; not shown)")
    text = read.text()
    if read.truncated:
        text += f"\n(truncated at {MAX_LINKED_BYTES // 1024} KiB)"
    if lines := LINE_RANGE.fullmatch(fragment):  # an @-mention of a selection: file#L10-20
        first = int(lines.group(1))
        last = int(lines.group(2) or first)
        selected = text.splitlines()[first - 1 : last]
        return Linked(f"(lines {first}-{last})\n" + "\n".join(selected))
    return Linked(text)
