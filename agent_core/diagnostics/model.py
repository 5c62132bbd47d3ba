"""A diagnostic, the ``Diagnostician`` port, and the pure rules: what is new after an edit, and
how it reads for the model."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, Protocol

from msgspec import Struct

Severity = Literal["error", "warning", "information", "hint"]


class Diagnostic(Struct, frozen=True):
    line: int  # 1-based
    column: int  # 1-based
    severity: Severity
    message: str
    source: str = ""  # "basedpyright", "Ruff", "ts"...
    code: str = ""

    @property
    def identity(self) -> tuple[str, str, str, str]:
        """What an edit does not change about a diagnostic that was already there: its lines may
        move, so the position is left out."""
        return (self.severity, self.message, self.source, self.code)


class Findings(Struct, frozen=True):
    """A file's diagnostics from one source, or why there are none to give."""

    diagnostics: tuple[Diagnostic, ...] = ()
    source: str = ""  # who answered: "the editor", "basedpyright"...; "" when none covers it
    unavailable: str | None = None  # set when nobody could answer


class Diagnostician(Protocol):
    """Diagnostics of files as they are now (the editor's, or language servers Heron runs)."""

    async def findings(self, path: Path, text: str | None) -> Findings:
        """``path``'s diagnostics with this ``text`` (None: as it is on disk or in the editor);
        waits at most the configured cap."""
        ...

    async def workspace(self) -> dict[Path, Findings]:
        """Every file's diagnostics this source knows of."""
        ...


class FirstAnswer:
    """Sources in order of preference (the editor's, then Heron's servers): the first that
    answers wins."""

    def __init__(self, sources: Sequence[Diagnostician]) -> None:
        self._sources = tuple(sources)

    async def findings(self, path: Path, text: str | None) -> Findings:
        reasons: list[str] = []
        for source in self._sources:
            found = await source.findings(path, text)
            if found.unavailable is None:
                return found
            reasons.append(found.unavailable)
        return Findings(unavailable="; ".join(reasons) or "no source of diagnostics")

    async def workspace(self) -> dict[Path, Findings]:
        for source in self._sources:
            if found := await source.workspace():
                return found
        return {}


class Diagnostics(Struct, frozen=True):
    """What file-changing tools are given: the source, and what to report of it."""

    source: Diagnostician
    warnings: bool = False
    max_shown: int = 20

    def after_edit(self, shown: str, before: Findings | None, after: Findings) -> str:
        """What the edit's result says: the new problems, or that there are none, or why
        there was nobody to ask."""
        if after.unavailable is not None:
            return f"Diagnostics unavailable: {after.unavailable}"
        if not after.source:  # no source covers this kind of file
            return ""
        comparable = before is not None and before.source == after.source
        baseline = before.diagnostics if before is not None and comparable else ()
        fresh = new_problems(baseline, after.diagnostics, warnings=self.warnings)
        kinds = "errors or warnings" if self.warnings else "errors"
        if not fresh:
            return f"No new {kinds} from {after.source}."
        count = f"{len(fresh)} new problem{'s' if len(fresh) != 1 else ''}"
        return f"{after.source} reports {count} after this edit:\n" + render(
            shown, fresh, limit=self.max_shown
        )


def new_problems(
    before: Sequence[Diagnostic], after: Sequence[Diagnostic], *, warnings: bool
) -> list[Diagnostic]:
    """What ``after`` has that ``before`` had not: a diagnostic the edit left in place (the
    same message, perhaps on another line) is not new. Errors, and warnings when asked."""
    wanted = {"error", "warning"} if warnings else {"error"}
    seen = Counter(d.identity for d in before)
    fresh: list[Diagnostic] = []
    for diagnostic in sorted(after, key=lambda d: (d.line, d.column)):
        if seen[diagnostic.identity] > 0:
            seen[diagnostic.identity] -= 1
        elif diagnostic.severity in wanted:
            fresh.append(diagnostic)
    return fresh


def render(shown: str, diagnostics: Sequence[Diagnostic], *, limit: int) -> str:
    """``shown:line:column: severity: message [source code]`` lines, at most ``limit``."""
    lines = [
        f"{shown}:{d.line}:{d.column}: {d.severity}: {d.message}{_origin(d)}"
        for d in diagnostics[:limit]
    ]
    if len(diagnostics) > limit:
        lines.append(f"... and {len(diagnostics) - limit} more")
    return "\n".join(lines)


def _origin(diagnostic: Diagnostic) -> str:
    named = " ".join(part for part in (diagnostic.source, diagnostic.code) if part)
    return f" [{named}]" if named else ""
