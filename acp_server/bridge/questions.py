"""``EditorQuestioner``: asks the user a question (the ``clarify`` tool) the best way the editor
allows.

1. ``elicitation/create`` in form mode, where the client advertises ``elicitation.form``: one
   ``answer`` field, a single-select of the choices or free text.
2. Else, with choices: ``session/request_permission``, one option per choice and "Skip".
3. Else: no way to ask, and the question becomes the turn's reply.

A ``session/cancel`` while the user is asked cancels the turn's scope, and with it the request
(``Connection.request`` sends ``$/cancel_request``), as for approvals.
"""

from __future__ import annotations

import logging
from typing import Any, cast

from acp_server.bridge.approver import from_permission_result, to_permission_request
from acp_server.jsonrpc.connection import Connection
from acp_server.jsonrpc.errors import METHOD_NOT_FOUND, RpcError
from acp_server.jsonrpc.values import as_object
from agent_core.approval.permissions import ApprovalRequest, Option
from agent_core.ports.questions import Answer, Question

log = logging.getLogger(__name__)

ANSWER_FIELD = "answer"
SKIP = Option("skip", "Skip", "reject_once")


class EditorQuestioner:
    def __init__(self, connection: Connection, session_id: str, *, elicitation: bool) -> None:
        self._connection = connection
        self._session_id = session_id
        self._elicitation = elicitation  # the client advertised ``elicitation.form``

    async def ask(self, question: Question) -> Answer:
        if self._elicitation:
            try:
                result = await self._connection.request(
                    "elicitation/create", to_elicitation_request(self._session_id, question)
                )
            except RpcError as exc:  # the next way to ask, then
                log.warning("elicitation/create failed: %s", exc)
                if exc.code == METHOD_NOT_FOUND:
                    self._elicitation = False
            else:
                return from_elicitation_result(result)
        if not question.choices:
            return Answer("unasked")
        request = to_choice_request(question)
        asked = to_permission_request(self._session_id, request)
        asked["_meta"] = {"heron": {"question": True}}  # not an approval: a client may skip it
        try:
            result = await self._connection.request("session/request_permission", asked)
        except RpcError as exc:
            log.warning("session/request_permission failed: %s", exc)
            return Answer("unasked")
        return from_choice_result(result, question, request.options)


def to_elicitation_request(session_id: str, question: Question) -> dict[str, Any]:
    """A form with one required ``answer``: one of the choices, or free text."""
    field: dict[str, Any] = {"type": "string", "title": "Answer"}
    if question.choices:
        field["oneOf"] = [{"const": choice, "title": choice} for choice in question.choices]
    else:
        field["minLength"] = 1
    return {
        "sessionId": session_id,
        "toolCallId": question.call_id,
        "mode": "form",
        "message": question.text,
        "requestedSchema": {
            "type": "object",
            "properties": {ANSWER_FIELD: field},
            "required": [ANSWER_FIELD],
        },
    }


def from_elicitation_result(result: Any) -> Answer:
    """The user's answer; an action this version does not know counts as no answer."""
    response = as_object(result) or {}
    match response.get("action"):
        case "accept":
            content = as_object(response.get("content")) or {}
            return Answer("answered", _text(content.get(ANSWER_FIELD)))
        case "decline":
            return Answer("declined")
        case _:
            return Answer("cancelled")


def to_choice_request(question: Question) -> ApprovalRequest:
    """The choices as a permission request: one option each, then "Skip"."""
    options = tuple(
        Option(f"choice-{n}", choice, "allow_once") for n, choice in enumerate(question.choices)
    )
    return ApprovalRequest(question.call_id, question.text, "other", (*options, SKIP))


def from_choice_result(result: Any, question: Question, options: tuple[Option, ...]) -> Answer:
    outcome = from_permission_result(result, options)
    if outcome.decision == "cancelled":
        return Answer("cancelled")
    if not outcome.allowed or outcome.option_id is None:
        return Answer("declined")
    return Answer("answered", question.choices[int(outcome.option_id.removeprefix("choice-"))])


def _text(value: Any) -> str:
    """An answer as text, whatever JSON type the client sent it as."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ", ".join(str(v) for v in cast(list[Any], value))
    return "" if value is None else str(value)
