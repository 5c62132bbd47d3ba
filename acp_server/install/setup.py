"""``heron setup <editor>``: write the editor's entry for Heron, merging into what is there.

The file is backed up first, written atomically, and refused (untouched) when it cannot be
parsed; comments and everything else in it stay as they were.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import TextIO

from acp_server.install import jsonc
from acp_server.install.editors import Editor, installed_heron


def run_setup(editor: Editor, out: TextIO, *, dry_run: bool) -> int:
    heron = installed_heron()
    if heron is None:
        out.write(
            "Cannot find the `heron` command; install Heron first (pip install heron-agent).\n"
        )
        return 1
    entry = editor.entry(heron)
    snippet = json.dumps(jsonc.nest(editor.key, entry), indent=2)
    file = editor.settings.resolve()  # a symlinked settings file is edited where it lives
    text = file.read_text(encoding="utf-8") if file.exists() else ""
    try:
        updated = _merged(text, editor.key, entry)
    except jsonc.JsoncError as exc:
        out.write(
            f"Not changing {file}: it cannot be read as JSON ({exc}).\n"
            f"Fix the file, or add this entry by hand:\n{snippet}\n"
        )
        return 1
    if updated == text:
        out.write(f"{editor.title} is already set up: {file} starts {heron} acp.\n")
        return 0
    if dry_run:
        action = "update" if text else "create"
        out.write(f"Would {action} {file} with:\n{snippet}\n(nothing written: --dry-run)\n")
        return 0
    backup = back_up(file) if text else None
    _write_atomically(file, updated)
    out.write(f"Set up {editor.title}: {file} now starts {heron} acp.\n")
    if backup is not None:
        out.write(f"The previous file is kept as {backup}.\n")
    out.write(f"Next: {editor.next_step}\n")
    return 0


def _merged(text: str, key: tuple[str, ...], entry: object) -> str:
    """``text`` with the entry at ``key``; an entry that is there already keeps what the user
    added to it (its ``env``, its ``default_mode``): only the fields Heron owns are set."""
    existing = jsonc.member(jsonc.loads(text), key)
    if not (isinstance(existing, dict) and isinstance(entry, dict)):
        return jsonc.set_member(text, key, entry)
    for field in ("type", "command", "args"):
        if field in entry:
            text = jsonc.set_member(text, (*key, field), entry[field])
    return text


def back_up(file: Path) -> Path:
    """A dated copy of ``file`` beside it, before Heron edits it."""
    backup = file.with_name(f"{file.name}.{time.strftime('%Y%m%d-%H%M%S')}.bak")
    shutil.copy2(file, backup)
    return backup


def _write_atomically(file: Path, text: str) -> None:
    file.parent.mkdir(parents=True, exist_ok=True)
    mode = file.stat().st_mode & 0o777 if file.exists() else 0o644
    fd, temp = tempfile.mkstemp(dir=file.parent, prefix=f".{file.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    Path(temp).chmod(mode)
    Path(temp).replace(file)
