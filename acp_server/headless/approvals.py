"""How ``heron exec`` answers ``session/request_permission`` with no person to ask. Pure.

The session's mode decides first, in ``heron acp``, as for an editor: what the mode runs is
never asked, what it refuses never reaches here (``safety.policy``). Everything that does
reach here would ask a person, and none is there, so it is refused at once with a reason the
model reads (``_meta.heron.reason``: "The user rejected this command. The user said: ..."),
except one case: ``--allow-dangerous`` says yes to a question the policy asks *only* because
the command is dangerous (``_meta.heron.onlyDangerous``: the mode would run it otherwise).
A question of the ``clarify`` tool (``_meta.heron.question``) gets "Skip": no answer.

Never an "always" answer: Heron would remember it for later sessions, the editor's included.
A request with no one-time rejection among its options is answered ``cancelled``, which ends
the turn (a question never hangs).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from acp_server.headless.wire import heron_of, objects
from acp_server.jsonrpc.values import as_object

UNATTENDED = (
    "no one is here to approve it: `heron exec` runs without a person, and in {mode} mode "
    "whatever would ask is refused. Do without it, or say what it would take"
)
DANGEROUS = (
    "it is dangerous, and `heron exec` runs dangerous commands only with --allow-dangerous. "
    "Do without it, or say what it would take"
)
UNANSWERED = "no one is here to answer: go on with your best judgement, and say what you assumed"


class Policy(NamedTuple):
    mode: str  # the session's approval mode
    allow_dangerous: bool = False


class Answer(NamedTuple):
    result: dict[str, Any]  # the response to send
    refused: bool  # an action was refused for lack of approval (not a question left unanswered)
    reason: str | None  # what the model reads, when refused or unanswered


def answer(params: Any, policy: Policy) -> Answer:
    """The answer to one ``session/request_permission``'s ``params``."""
    request = as_object(params) or {}
    options = objects(request.get("options"))
    heron = heron_of(request)
    if heron.get("question") is True:
        return _reject(options, UNANSWERED, refused=False)
    dangerous = heron.get("onlyDangerous") is True
    if dangerous and policy.allow_dangerous and (allow := _option(options, "allow_once")):
        return Answer(_selected(allow), refused=False, reason=None)
    return _reject(options, DANGEROUS if dangerous else UNATTENDED.format(mode=policy.mode))


def _reject(options: list[dict[str, Any]], reason: str, *, refused: bool = True) -> Answer:
    chosen = _option(options, "reject_once")
    if chosen is None:
        return Answer({"outcome": {"outcome": "cancelled"}}, refused, reason)
    result = {**_selected(chosen), "_meta": {"heron": {"reason": reason}}}
    return Answer(result, refused, reason)


def _option(options: list[dict[str, Any]], kind: str) -> str | None:
    """The id of the first option of ``kind``."""
    for option in options:
        if option.get("kind") == kind and isinstance(option.get("optionId"), str):
            return str(option["optionId"])
    return None


def _selected(option_id: str) -> dict[str, Any]:
    return {"outcome": {"outcome": "selected", "optionId": option_id}}
