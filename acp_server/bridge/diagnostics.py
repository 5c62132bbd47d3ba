"""``EditorDiagnostics``: the editor's own diagnostics, through Heron's ACP extension method
``_heron/diagnostics``, for a client that advertises ``clientCapabilities._meta.heron.diagnostics``
(Heron's VS Code extension answers it from ``vscode.languages.getDiagnostics``).

Request: ``{"sessionId", "paths"?: [absolute paths] (omitted: every file), "settleMs"}`` where
``settleMs`` asks the editor to wait that long for its language services to catch up with a
change just written. Result: ``{"files": [{"path", "diagnostics": [{"range": {"start":
{"line", "character"}}, "severity": "error" | "warning" | "information" | "hint", "message",
"source"?, "code"?}]}]}``, positions 0-based as in LSP.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from acp_server.jsonrpc.connection import Connection
from acp_server.jsonrpc.errors import RpcError
from acp_server.jsonrpc.values import as_object
from agent_core.diagnostics.model import Diagnostic, Findings, Severity

Files = dict[Path, Findings]
METHOD = "_heron/diagnostics"
SOURCE = "the editor"
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "information", "hint")


class EditorDiagnostics:
    def __init__(self, connection: Connection, session_id: str, wait: float) -> None:
        self._connection, self._session_id, self._wait = connection, session_id, wait
        self._texts: dict[Path, str] = {}  # the text each file was last asked about with

    async def findings(self, path: Path, text: str | None) -> Findings:
        """The editor's diagnostics of ``path``; asked with a new ``text`` (an edit's, just
        written), the editor first lets its language services catch up, for up to half the
        wait."""
        changed = text is not None and self._texts.get(path, text) != text
        if text is not None:
            self._texts[path] = text
        files = await self._ask([path], settle_ms=int(self._wait * 500) if changed else 0)
        if files is None:
            return Findings(source=SOURCE, unavailable="the editor did not answer")
        return files.get(path, Findings((), SOURCE))

    async def workspace(self) -> dict[Path, Findings]:
        return await self._ask(None, settle_ms=0) or {}

    async def _ask(
        self, paths: list[Path] | None, *, settle_ms: int
    ) -> dict[Path, Findings] | None:
        params: dict[str, Any] = {"sessionId": self._session_id, "settleMs": settle_ms}
        if paths is not None:
            params["paths"] = [str(p) for p in paths]
        try:
            result = await self._connection.request(METHOD, params, timeout=self._wait + 1)
        except (RpcError, TimeoutError):
            return None
        return from_editor_diagnostics(result)


def from_editor_diagnostics(result: Any) -> dict[Path, Findings]:
    """The answer as findings per file; entries of the wrong shape are skipped."""
    found: dict[Path, Findings] = {}
    for entry in _list((as_object(result) or {}).get("files")):
        file = as_object(entry) or {}
        if not isinstance(path := file.get("path"), str):
            continue
        items = _list(file.get("diagnostics"))
        found[Path(path)] = Findings(tuple(filter(None, map(_diagnostic, items))), SOURCE)
    return found


def _list(value: Any) -> list[Any]:
    return cast(list[Any], value) if isinstance(value, list) else []


def _diagnostic(raw: Any) -> Diagnostic | None:
    item = as_object(raw) or {}
    start = as_object((as_object(item.get("range")) or {}).get("start")) or {}
    line, column, message = start.get("line"), start.get("character"), item.get("message")
    if not isinstance(line, int) or not isinstance(column, int) or not isinstance(message, str):
        return None
    severity = item.get("severity")
    code = item.get("code")
    return Diagnostic(
        line + 1,
        column + 1,
        severity if severity in SEVERITIES else "error",
        message,
        str(item.get("source") or ""),
        "" if code is None else str(code),
    )
