"""``heron doctor``'s look at each configured model: can its provider be reached, does it take
the key, does it have the model. One small request each (the models endpoint), all at once,
each within a short time limit."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import anyio
from msgspec import Struct

from agent_core.errors import ModelError
from agent_core.models.registry import single_model
from agent_core.models.settings import ConfiguredModels

TIMEOUT = 5.0


@runtime_checkable
class Checkable(Protocol):
    async def check(self) -> None: ...


class Checked(Struct, frozen=True):
    spec: str  # <provider>:<model>
    ok: bool
    said: str  # what was found, or what is wrong and how to fix it


def configured(settings: ConfiguredModels) -> list[str]:
    """The models a session may use (the model, then the fallbacks) that have a provider to ask."""
    specs = [settings.model, *settings.fallback_models]
    return list(dict.fromkeys(s for s in specs if s and not s.startswith("scripted:")))


async def check_all(
    settings: ConfiguredModels, specs: Sequence[str], within: float = TIMEOUT
) -> list[Checked]:
    """Every model in ``specs`` checked in parallel; the answers in the order asked."""
    answers: dict[str, Checked] = {}

    async def one(spec: str) -> None:
        answers[spec] = await check(settings, spec, within)

    async with anyio.create_task_group() as group:
        for spec in specs:
            group.start_soon(one, spec)
    return [answers[spec] for spec in specs]


async def check(settings: ConfiguredModels, spec: str, within: float = TIMEOUT) -> Checked:
    provider = spec.partition(":")[0]
    try:
        model = single_model(spec, settings)
        if not isinstance(model, Checkable):
            return Checked(spec, True, "nothing to check")
        # The SDK loads first, untimed: the limit is for the provider's answer (an import takes
        # seconds on a busy machine, and would read as a provider that does not answer).
        await anyio.to_thread.run_sync(model.warm_up)
        started = time.monotonic()
        with anyio.fail_after(within):
            await model.check()
    except ModelError as exc:
        return Checked(spec, False, str(exc))
    except TimeoutError:
        where = settings.provider(provider).base_url or f"{provider}'s API"
        return Checked(
            spec,
            False,
            f"no answer from {where} within {within:g} s; check the network or base_url",
        )
    took = (time.monotonic() - started) * 1000
    return Checked(spec, True, f"reachable, key accepted, model found ({took:.0f} ms)")
