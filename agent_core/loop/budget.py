"""A turn's request budget, ended well: the model is told when it runs low, and at the limit it
is asked, with tools off, to sum up what it did and what remains, so the user is not left with
a turn that simply stopped."""

from __future__ import annotations

import math

WARN_AT = 0.8  # the share of the budget from which every request carries a note


def budget_note(number: int, limit: int) -> str | None:
    """The note request ``number`` (from 1) of ``limit`` carries, from 80% of the budget on."""
    if number < math.ceil(limit * WARN_AT):
        return None
    left = limit - number
    after = f"{left} more after this one" if left else "none after this one"
    return (
        f"[Heron: this is model request {number} of {limit} in this turn; {after}. "
        "Finish the most important part now. If the task cannot be finished in time, stop "
        "calling tools and tell the user what you did and what remains.]"
    )


def summary_note(limit: int) -> str:
    """What the last request, made with tools off, asks of the model."""
    return (
        f"[Heron: this turn has used all {limit} of its model requests, so tools are off now. "
        "Reply to the user with a short summary: what you did, what you found, what remains "
        "to be done, and how to continue.]"
    )
