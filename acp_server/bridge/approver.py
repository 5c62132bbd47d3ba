"""``EditorApprover``: asks the user through ``session/request_permission``."""

from __future__ import annotations

from typing import Any

from acp_server.bridge.updates import to_location, to_tool_content
from acp_server.jsonrpc.connection import Connection
from acp_server.jsonrpc.values import as_object
from agent_core.approval.permissions import ApprovalOutcome, ApprovalRequest, Option

MAX_REASON = 500  # characters of a client's reason for a rejection passed to the model


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
    asked: dict[str, Any] = {"sessionId": session_id, "toolCall": tool_call, "options": options}
    if request.grounds is not None:
        rule, dangerous = request.grounds.rule, request.grounds.only_dangerous
        asked["_meta"] = {"heron": {"rule": rule, "onlyDangerous": dangerous}}
    return asked


def from_permission_result(result: Any, options: tuple[Option, ...]) -> ApprovalOutcome:
    """The user's answer; anything unexpected counts as a rejection, never as consent. A
    rejection's ``_meta.heron.reason`` (``heron exec``: no one is there to ask) goes to the
    model with it."""
    answer = as_object(result) or {}
    outcome = as_object(answer.get("outcome")) or {}
    if outcome.get("outcome") != "selected":
        return ApprovalOutcome("cancelled")
    chosen = next((o for o in options if o.option_id == outcome.get("optionId")), None)
    if chosen is None:
        return ApprovalOutcome("reject_once", reason="the editor answered with an unknown option")
    reason = (as_object((as_object(answer.get("_meta")) or {}).get("heron")) or {}).get("reason")
    if chosen.kind in ("allow_once", "allow_always") or not isinstance(reason, str):
        return ApprovalOutcome(chosen.kind, chosen.option_id)
    return ApprovalOutcome(chosen.kind, chosen.option_id, reason=reason[:MAX_REASON])
