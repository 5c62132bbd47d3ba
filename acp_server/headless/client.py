"""``ExecClient``: the client side of the connection to ``heron acp``, with no person behind it.

It answers permission questions by policy (``approvals``) the moment they come, never keeps a
question waiting, and answers every other request (``fs/*``, ``terminal/*``, elicitation: none
of which it advertises) "method not found", so Heron does those itself or asks no one. Each
``session/update`` of its session goes to the record, and once the run has started, to the
output.
"""

from __future__ import annotations

from typing import Any

from acp_server.headless.approvals import Policy, answer
from acp_server.headless.output import Output
from acp_server.headless.record import RunRecord
from acp_server.jsonrpc.errors import RpcError
from acp_server.jsonrpc.values import as_object

# What ``initialize`` says of this client: notices and compaction as updates of their own, so
# that none of them passes for a part of the answer (without them they are agent messages).
CAPABILITIES: dict[str, Any] = {"session": {"notices": {}, "compaction": {}}}


class ExecClient:
    def __init__(self, record: RunRecord, output: Output, policy: Policy) -> None:
        self.record = record
        self.output = output
        self.policy = policy
        self.session_id: str | None = None
        self.streaming = False  # the start line is out: updates go to the output too

    async def handle_request(self, method: str, params: Any) -> Any:
        if method != "session/request_permission":
            raise RpcError.method_not_found(method)
        answered = answer(params, self.policy)
        call = as_object((as_object(params) or {}).get("toolCall")) or {}
        if answered.refused:  # the call's update says so too, when the approval gate asked
            self.record.refuse(str(call.get("toolCallId")), str(answered.reason))
        elif answered.reason is not None:
            self.output.note(f"? left unanswered: {call.get('title') or 'a question'}")
        return answered.result

    async def handle_notification(self, method: str, params: Any) -> None:
        if method != "session/update":
            return
        notification = as_object(params) or {}
        update = as_object(notification.get("update"))
        if update is None or notification.get("sessionId") != self.session_id:
            return
        self.record.see(update)
        if self.streaming:
            self.output.update(update)

    async def input_closed(self) -> None:
        return None

    def cancel_request(self, method: str, params: Any) -> bool:
        return False
