"""``clarify``: a question only the user can settle, with optional choices.

The session's ``Questioner`` asks it the best way the editor allows (a form, a choice among
options). Where there is none, the question becomes the turn's reply and the user's next prompt
is the answer. Whatever happens, the model is told: the answer, a decline, a dismissal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field, field_validator

from agent_core.events import TextContent, ToolCallUpdated, ToolKind
from agent_core.ports.questions import Answer, Question
from agent_core.tools.arguments import Arguments
from agent_core.tools.base import ToolContext, ToolOutput

MAX_CHOICES = 8
MAX_CHOICE_CHARS = 80
TITLE_CHARS = 80
ASKED_IN_REPLY = (
    "There is no way to ask here, so the question is your reply and the turn ends: the user's "
    "answer will be the next prompt."
)

Choice = Annotated[str, Field(min_length=1, max_length=MAX_CHOICE_CHARS)]


class ClarifyArguments(Arguments):
    question: str = Field(
        min_length=1, max_length=2000, description="One clear question, as the user will read it."
    )
    choices: list[Choice] = Field(
        default_factory=list[str],
        max_length=MAX_CHOICES,
        description=(
            f"Up to {MAX_CHOICES} short, distinct answers for the user to pick from; leave "
            "empty for a free answer."
        ),
    )

    @field_validator("choices")
    @classmethod
    def _distinct(cls, choices: list[str]) -> list[str]:
        stripped = [c.strip() for c in choices]
        if any(not c for c in stripped):
            raise ValueError("a choice is blank")
        if len(set(stripped)) != len(stripped):
            raise ValueError("choices must be distinct")
        return stripped


class Clarify:
    name = "clarify"
    kind: ToolKind = "other"
    read_only = False  # it changes nothing, but the user answers one question at a time
    arguments = ClarifyArguments
    description = (
        "Ask the user a question when the task is ambiguous and a wrong guess would be costly "
        "(which of two designs, what a name should be, whether to touch a file). Offer choices "
        "when the answers are known. Do not ask what you can find out with the other tools."
    )

    def title(self, arguments: Mapping[str, Any]) -> str:
        question = " ".join(str(arguments.get("question") or "").split())
        if not question:
            return "Ask the user"
        return question if len(question) <= TITLE_CHARS else question[: TITLE_CHARS - 1] + "…"

    async def run(self, arguments: ClarifyArguments, context: ToolContext) -> str | ToolOutput:
        question = Question(context.call_id, arguments.question.strip(), tuple(arguments.choices))
        await _show(context, shown_question(question))
        answer = await context.questions.ask(question) if context.questions else Answer("unasked")
        if answer.outcome == "unasked":
            return ToolOutput(ASKED_IN_REPLY, reply=shown_question(question))
        result = told(answer)
        await _show(context, f"{shown_question(question)}\n\n{result}")
        return result


def shown_question(question: Question) -> str:
    """The question as the user reads it, its choices numbered."""
    lines = [question.text, *(f"{n}. {c}" for n, c in enumerate(question.choices, 1))]
    return "\n".join(lines)


def told(answer: Answer) -> str:
    """What the model reads about ``answer``."""
    match answer.outcome:
        case "answered" if answer.text.strip():
            return f"The user answered: {answer.text.strip()}"
        case "answered":
            return "The user submitted the question without an answer."
        case "declined":
            return "The user declined to answer. Go on with your best judgement, and say so."
        case _:
            return "The user dismissed the question without answering."


async def _show(context: ToolContext, text: str) -> None:
    await context.report(ToolCallUpdated(context.call_id, content=(TextContent(text),)))
