"""Running a compaction: clear old tool outputs, then summarise the middle with the model."""

from __future__ import annotations

from collections.abc import Sequence

from agent_core.context.compaction import (
    KEEP_RECENT_TOKENS,
    SUMMARY_SYSTEM,
    clear_old_tool_outputs,
    estimate_tokens,
    rebuilt,
    render,
    split_for_summary,
)
from agent_core.errors import ModelError
from agent_core.messages import Message, TextPart, UserMessage
from agent_core.models.base import Model, ModelRequest, ResponseCompleted


async def compact(
    model: Model, history: Sequence[Message], *, budget: int, force: bool
) -> tuple[list[Message], str | None, str | None]:
    """The shorter history, what was done (for the user), and the error if summarising failed.

    Without ``force``, stops after clearing tool outputs when that brings it under ``budget``.
    """
    keep_recent = min(KEEP_RECENT_TOKENS, budget // 2)  # small windows keep less verbatim
    cleared = clear_old_tool_outputs(history, keep_recent)
    if not force and estimate_tokens(cleared) <= budget:
        return cleared, "Cleared the output of older tool calls.", None
    split = split_for_summary(cleared, keep_recent)
    if split is None:
        return (
            cleared,
            "Cleared the output of older tool calls; nothing older to summarise yet.",
            None,
        )
    first, middle, tail = split
    try:
        summary = await _summarise(model, middle)
    except ModelError as exc:
        return cleared, None, f"could not summarise: {exc}"
    return rebuilt(first, summary, tail), summary, None


async def _summarise(model: Model, middle: Sequence[Message]) -> str:
    request = ModelRequest(
        SUMMARY_SYSTEM, (UserMessage((TextPart(render(middle)),)),), max_tokens=2048
    )
    async for event in model.stream(request):
        if isinstance(event, ResponseCompleted):
            return event.message.text.strip() or "(empty summary)"
    raise ModelError("the summary ended early")
