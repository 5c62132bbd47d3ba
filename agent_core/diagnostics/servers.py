"""Which language server covers which files: the defaults, used when their program is
installed, and the user's own in ``[diagnostics.servers.<name>]``, which take a file type over.

rust-analyzer is not among the defaults: it runs a crate's build scripts and proc macros, code
from the repository, and Heron starts language servers outside the command sandbox. Configure it
to have it (``command = ["rust-analyzer"]``, ``extensions = [".rs"]``).
"""

from __future__ import annotations

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

Which = Callable[[str], str | None]  # a program's name -> its path (shutil.which)


def available(
    configured: Sequence[LanguageServerSpec], which: Which | None = None
) -> tuple[LanguageServerSpec, ...]:
    """The servers Heron may start, with their programs' full paths where found: the configured
    ones (found or not: one that cannot start is then told about), then for each file type none
    of them covers, the first default that is installed. ``which``: ``shutil.which`` unless
    given (imported here: this module is on the start-up path, shutil is not needed there)."""
    if which is None:
        import shutil

        which = shutil.which
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
