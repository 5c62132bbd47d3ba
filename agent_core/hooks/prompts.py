"""The hooks around a prompt: ``prompt_submitted`` before its turn, ``turn_ended`` after it.

``prompt_submitted`` (given ``prompt``): exit 0 adds what it printed on stdout to the prompt,
as context the model reads with it; exit 2 refuses the prompt: the turn does not run, and its
reason (stderr, else stdout) is shown to the user. A failure or a timeout is shown and the
prompt goes on as it was.

``turn_ended`` (given ``stop_reason``): what it prints is shown to the user (on its tool call);
its exit status changes nothing.
"""

from __future__ import annotations

from typing import NamedTuple

from agent_core.hooks import payload
from agent_core.hooks.runner import Hooks


class PromptVerdict(NamedTuple):
    refused: str | None = None  # why the prompt does not run, for the user
    context: str = ""  # for the model, with the prompt


async def prompt_submitted(hooks: Hooks, text: str) -> PromptVerdict:
    await hooks.tell_problems()  # config.toml is read again before each prompt
    context: list[str] = []
    for spec in hooks.of("prompt_submitted"):
        outcome = await hooks.run(spec, payload.prompt(text))
        if outcome.refused:
            return PromptVerdict(f"{spec.name}: {outcome.reason or 'no reason given'}")
        if outcome.succeeded and outcome.output:
            context.append(f"[prompt_submitted hook {spec.name!r}]\n{outcome.output}")
    return PromptVerdict(None, "\n\n".join(context))


async def turn_ended(hooks: Hooks, stop_reason: str) -> None:
    for spec in hooks.of("turn_ended"):
        await hooks.run(spec, payload.turn(stop_reason))
