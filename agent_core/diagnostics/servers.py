"""Which language server covers which files: the defaults, used when their program is
installed, and the user's own in ``[diagnostics.servers.<name>]``, which take a file type over.

A repository is untrusted input, so a server's program is never taken from it: a name is looked
up only in the absolute ``PATH`` entries outside the workspace roots (an empty or relative entry,
``PATH=...:`` or ``node_modules/.bin``, would name a file of the workspace), and a program found
there that is a link into a root is passed over too. Only the user's config.toml can name a
program by its absolute path wherever it is. What a server then runs (a project's interpreter,
its TypeScript) runs inside the sandbox with it (``diagnostics.launching``).

rust-analyzer is not among the defaults: it runs a crate's build scripts and proc macros, code
from the repository, even to report diagnostics. Configure it to have it (``command =
["rust-analyzer"]``, ``extensions = [".rs"]``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple


class LanguageServerSpec(NamedTuple):
    name: str
    command: tuple[str, ...]
    extensions: frozenset[str]  # ".py", ".ts"...


# For each kind of file, the first of these whose program is installed.
PYTHON = frozenset({".py", ".pyi"})
DEFAULTS: tuple[tuple[LanguageServerSpec, ...], ...] = (
    (
        LanguageServerSpec("basedpyright", ("basedpyright-langserver", "--stdio"), PYTHON),
        LanguageServerSpec("pyright", ("pyright-langserver", "--stdio"), PYTHON),
        LanguageServerSpec("ruff", ("ruff", "server"), PYTHON),
    ),
    (
        LanguageServerSpec(
            "typescript-language-server",
            ("typescript-language-server", "--stdio"),
            frozenset({".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs"}),
        ),
    ),
    (LanguageServerSpec("gopls", ("gopls",), frozenset({".go"})),),
)  # fmt: skip

Which = Callable[[str], str | None]  # a program's name -> its absolute path, or None


def safe_search_path(search_path: str, roots: Sequence[Path]) -> str:
    """``search_path`` (a ``PATH`` value) without its empty and relative entries and those
    inside ``roots`` (after links): the ``PATH`` servers are looked up in, and run with."""
    inside = tuple(r.resolve() for r in roots)
    kept = [
        entry
        for entry in search_path.split(os.pathsep)
        if entry and Path(entry).is_absolute() and not _within(Path(entry).resolve(), inside)
    ]
    return os.pathsep.join(dict.fromkeys(kept))


def finder(search_path: str, roots: Sequence[Path]) -> Which:
    """How programs are found: in ``safe_search_path``'s folders, never a link into a root.
    An absolute path (from the user's configuration) is taken as it is; a relative one with a
    slash (``./bin/server``, ``node_modules/.bin/x``) never is."""
    inside = tuple(r.resolve() for r in roots)
    folders = [Path(f) for f in safe_search_path(search_path, roots).split(os.pathsep) if f]

    def which(name: str) -> str | None:
        if "/" in name:
            return name if Path(name).is_absolute() else None
        for folder in folders:
            candidate = folder / name
            runnable = candidate.is_file() and os.access(candidate, os.X_OK)
            if runnable and not _within(candidate.resolve(), inside):  # not a link into a root
                return str(candidate)
        return None

    return which


def available(
    configured: Sequence[LanguageServerSpec], which: Which
) -> tuple[LanguageServerSpec, ...]:
    """The servers Heron may start, with their programs' full paths where found: the configured
    ones (found or not: one that cannot start is then told about), then for each file type none
    of them covers, the first default that is installed (``which``: see ``finder``)."""
    chosen = [_located(spec, which) or spec for spec in configured]
    covered = {extension for spec in configured for extension in spec.extensions}
    for candidates in DEFAULTS:
        if candidates[0].extensions & covered:
            continue
        if default := next((f for c in candidates if (f := _located(c, which))), None):
            chosen.append(default)
    return tuple(chosen)


def server_for(path: Path, servers: Sequence[LanguageServerSpec]) -> LanguageServerSpec | None:
    return next((s for s in servers if path.suffix in s.extensions), None)


def _located(spec: LanguageServerSpec, which: Which) -> LanguageServerSpec | None:
    program = which(spec.command[0])
    if program is None:
        return None
    return LanguageServerSpec(spec.name, (program, *spec.command[1:]), spec.extensions)


def _within(path: Path, roots: Sequence[Path]) -> bool:
    return any(path.is_relative_to(root) for root in roots)
