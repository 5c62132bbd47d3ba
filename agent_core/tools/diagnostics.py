"""``diagnostics``: what the editor or the language servers say about files now."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from agent_core.diagnostics.model import Findings, render
from agent_core.errors import ToolError
from agent_core.events import ToolKind
from agent_core.tools.arguments import Arguments
from agent_core.tools.base import ToolContext, require_inside


class DiagnosticsArguments(Arguments):
    paths: list[str] = Field(
        default_factory=list,
        description="Files to check. Empty: every file known to have diagnostics (the editor's "
        "whole workspace, or the files checked so far in this session).",
    )


class DiagnosticsTool:
    name = "diagnostics"
    kind: ToolKind = "read"
    read_only = True
    arguments = DiagnosticsArguments
    description = (
        "Errors and warnings the editor's or Heron's language servers report for files, as "
        "they are now. Edits already report the new errors they cause; use this to see what "
        "was wrong before, or to check a file you did not edit."
    )

    def title(self, arguments: Mapping[str, Any]) -> str:
        paths: list[Any] = list(arguments.get("paths") or [])
        return f"Diagnostics of {', '.join(str(p) for p in paths)}" if paths else "Diagnostics"

    async def run(self, arguments: DiagnosticsArguments, context: ToolContext) -> str:
        checks = context.diagnostics
        if checks is None:
            raise ToolError("Diagnostics are turned off ([diagnostics] enabled = false).")
        if arguments.paths:
            paths = [require_inside(context, raw) for raw in arguments.paths]
            found = {path: await checks.source.findings(path, None) for path in paths}
        else:
            found = await checks.source.workspace()
        if not found:
            return "No diagnostics are known yet: name the files to check."
        return "\n\n".join(
            _section(context.shown(path), findings, checks.max_shown)
            for path, findings in sorted(found.items())
        )


def _section(shown: str, findings: Findings, limit: int) -> str:
    if findings.unavailable is not None:
        return f"{shown}: unavailable ({findings.unavailable})"
    if not findings.source:
        return f"{shown}: no language server covers this kind of file"
    if not findings.diagnostics:
        return f"{shown}: no problems ({findings.source})"
    listed = sorted(findings.diagnostics, key=lambda d: (d.line, d.column))
    return f"{shown} ({findings.source}):\n" + render(shown, listed, limit=limit)
