"""``EditorApprover``: asks the user through ``session/request_permission``."""

from __future__ import annotations

from typing import Any, cast, get_args

from acp_server.jsonrpc.connection import Connection
from acp_server.jsonrpc.values import as_object
from agent_core.approvals import ApprovalOutcome, ApprovalRequest, Decision

OPTIONS = [
    {"optionId": "allow_once", "name": "Allow", "kind": "allow_once"},
    {"optionId": "allow_always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "reject_once", "name": "Reject", "kind": "reject_once"},
    {"optionId": "reject_always", "name": "Always reject", "kind": "reject_always"},
]


class EditorApprover:
    def __init__(self, connection: Connection, session_id: str) -> None:
        self._connection = connection
        self._session_id = session_id

    async def request(self, request: ApprovalRequest) -> ApprovalOutcome:
        params = {
            "sessionId": self._session_id,
            "toolCall": {
                "toolCallId": request.call_id,
                "title": request.title,
                "kind": request.tool_kind,
            },
            "options": OPTIONS,
        }
        result = await self._connection.request("session/request_permission", params)
        return from_permission_result(result)


def from_permission_result(result: Any) -> ApprovalOutcome:
    """The user's answer; anything unexpected counts as a rejection, never as consent."""
    outcome = as_object((as_object(result) or {}).get("outcome")) or {}
    if outcome.get("outcome") != "selected":
        return ApprovalOutcome("cancelled")
    option = outcome.get("optionId")
    if option in get_args(Decision):
        return ApprovalOutcome(cast(Decision, option))
    return ApprovalOutcome("reject_once")
