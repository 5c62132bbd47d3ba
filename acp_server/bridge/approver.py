"""``EditorApprover``: asks the user through ``session/request_permission``."""

from __future__ import annotations

from typing import Any

from acp_server.bridge.updates import to_location, to_tool_content
from acp_server.jsonrpc.connection import Connection
from acp_server.jsonrpc.values import as_object
from agent_core.approval.permissions import ApprovalOutcome, ApprovalRequest, Option


class EditorApprover:
    def __init__(self, connection: Connection, session_id: str) -> None:
        self._connection = connection
        self._session_id = session_id

    async def request(self, request: ApprovalRequest) -> ApprovalOutcome:
        result = await self._connection.request(
            "session/request_permission", to_permission_request(self._session_id, request)
        )
        return from_permission_result(result, request.options)


def to_permission_request(session_id: str, request: ApprovalRequest) -> dict[str, Any]:
    tool_call: dict[str, Any] = {
        "toolCallId": request.call_id,
        "title": request.title,
        "kind": request.tool_kind,
    }
    if request.content:
        tool_call["content"] = [to_tool_content(c) for c in request.content]
    if request.locations:
        tool_call["locations"] = [to_location(loc) for loc in request.locations]
    options = [{"optionId": o.option_id, "name": o.name, "kind": o.kind} for o in request.options]
    return {"sessionId": session_id, "toolCall": tool_call, "options": options}


def from_permission_result(result: Any, options: tuple[Option, ...]) -> ApprovalOutcome:
    """The user's answer; anything unexpected counts as a rejection, never as consent."""
    outcome = as_object((as_object(result) or {}).get("outcome")) or {}
    if outcome.get("outcome") != "selected":
        return ApprovalOutcome("cancelled")
    chosen = next((o for o in options if o.option_id == outcome.get("optionId")), None)
    if chosen is None:
        return ApprovalOutcome("reject_once", reason="the editor answered with an unknown option")
    return ApprovalOutcome(chosen.kind, chosen.option_id)
