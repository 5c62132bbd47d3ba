"""Asking the user a question (the ``clarify`` tool): the ``Questioner`` port and its answers.

How a question reaches the user is the editor's business (a form, a choice among options, or
nothing at all); the tool only needs to know what came back, so it can tell the model.
"""

from __future__ import annotations

from typing import Literal, Protocol

from msgspec import Struct

AnswerOutcome = Literal["answered", "declined", "cancelled", "unasked"]


class Question(Struct, frozen=True):
    call_id: str  # the tool call asking, so the editor can show the question beside it
    text: str
    choices: tuple[str, ...] = ()  # empty: a free answer


class Answer(Struct, frozen=True):
    """What came back: the user's ``text`` (``answered``); ``declined`` (the user chose not
    to answer); ``cancelled`` (the question was dismissed); ``unasked`` (there is no way to
    ask it here: the question goes to the user as the turn's reply)."""

    outcome: AnswerOutcome
    text: str = ""


class Questioner(Protocol):
    async def ask(self, question: Question) -> Answer: ...
