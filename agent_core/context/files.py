"""The project's own instructions for agents: AGENTS.md and its kin, found from the session's
workspace (never from the process directory), capped in size and screened for injection
(``safety/injection.py``).

A repository is untrusted input: each file is opened by ``safety/safe_open.py``, so one that
leads out of the repository (a link to ``~/.ssh/id_rsa``), a FIFO, a device or a folder is left
out with the reason, never read. The user's own files (``$HERON_HOME/AGENTS.md`` and kin) follow
the user's links, and are still read only when they are regular files.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct

from agent_core.safety.injection import screen
from agent_core.safety.safe_open import UnsafeFile, read_from, why_unreadable

NAMES = ("AGENTS.md", "HERON.md", "CLAUDE.md", ".cursorrules", ".github/copilot-instructions.md")
MAX_FILE_CHARS = 20_000
MAX_TOTAL_CHARS = 60_000
MAX_FILE_BYTES = MAX_FILE_CHARS * 4  # read no further: what is kept fits in it


class ContextFile(Struct, frozen=True):
    path: Path
    text: str
    blocked: str | None = None  # why the file was left out of the prompt


def find_context_files(cwd: Path) -> list[ContextFile]:
    """The workspace's own files, then the nearest of each name in parent directories up to the
    repository root (the directory holding ``.git``); none above it. Every one must lie inside
    that root once its links are resolved (the workspace, outside a repository)."""
    found: list[ContextFile] = []
    seen: set[str] = set()
    chain = instruction_folders(cwd)
    root = chain[-1]
    where = "the repository" if (root / ".git").exists() else "the workspace"
    for directory in chain:
        for name in NAMES:
            path = directory / name
            if name in seen or not os.path.lexists(path):
                continue
            seen.add(name)
            found.append(read_context_file(path, root, where))
    return found


def user_context_files(paths: Sequence[Path]) -> list[ContextFile]:
    """The user's own instructions, those of ``paths`` that exist (a dangling link is named)."""
    return [read_context_file(path) for path in paths if os.path.lexists(path)]


def read_context_file(
    path: Path, root: Path | None = None, where: str = "the workspace"
) -> ContextFile:
    """``path`` read inside ``root`` (None: a file of the user's own), or why it was not."""
    try:
        read = read_from(path, root, MAX_FILE_BYTES, where=where)
    except (OSError, UnsafeFile) as exc:
        return ContextFile(path, "", why_unreadable(exc))
    text = read.text()
    if reason := screen(text):
        return ContextFile(path, "", reason)
    if len(text) > MAX_FILE_CHARS or read.truncated:
        text = text[:MAX_FILE_CHARS] + f"\n\n[{path.name} cut at {MAX_FILE_CHARS:,} characters]"
    return ContextFile(path, text)


def render_context_files(files: list[ContextFile], tag: str = "project-instructions") -> str:
    """The section of the system prompt that carries them, within the total cap."""
    sections: list[str] = []
    total = 0
    for file in files:
        if file.blocked or not file.text.strip():
            continue
        if total + len(file.text) > MAX_TOTAL_CHARS:
            sections.append(f"[{file.path} left out: over {MAX_TOTAL_CHARS:,} characters in all]")
            continue
        total += len(file.text)
        body = file.text.strip()
        sections.append(f'<{tag} file="{file.path}">\n{body}\n</{tag}>')
    return "\n\n".join(sections)


def instruction_folders(cwd: Path) -> list[Path]:
    """Where the project's instructions are looked for: the workspace, then each parent up to
    the repository root (the workspace alone outside a repository)."""
    chain = [cwd]
    if (cwd / ".git").exists():
        return chain
    for parent in cwd.parents:
        chain.append(parent)
        if (parent / ".git").exists():
            return chain
    return [cwd]  # not in a repository: the workspace alone


def fingerprint(cwd: Path) -> dict[Path, tuple[int, int]]:
    """What the context files look like on disk now (path -> size, mtime), to notice edits."""
    prints: dict[Path, tuple[int, int]] = {}
    for directory in instruction_folders(cwd):
        for name in NAMES:
            path = directory / name
            try:
                stat = path.stat()
            except OSError:
                continue
            prints[path] = (stat.st_size, stat.st_mtime_ns)
    return prints


def changed_files(
    before: dict[Path, tuple[int, int]], now: dict[Path, tuple[int, int]]
) -> list[Path]:
    return sorted(path for path in before.keys() | now.keys() if before.get(path) != now.get(path))
