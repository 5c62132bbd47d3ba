"""Retries with jittered backoff (honouring Retry-After), then a fallback chain of models.

A transient fault (``ModelUnavailable``: rate limit, overload, server error, timeout) before
anything was streamed is retried, and once the retries are spent the next model of the chain
takes over; after output reached the user it cannot be repeated, so it ends the response
(``StreamInterrupted``). A model the provider does not have or does not let this key use
(``ModelNotFound``, ``PermissionDenied``) hands over at once. Anything else (a rejected key, an
empty account, an overflow the loop compacts for, a bad request) is raised as it is: another
model would not help. Each wait and each switch is announced as a ``StatusNotice`` so the editor
shows it while it happens.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence

import anyio

from agent_core.errors import (
    ModelError,
    ModelNotFound,
    ModelUnavailable,
    PermissionDenied,
    StreamInterrupted,
)
from agent_core.models.base import Model, ModelRequest, StatusNotice, StreamEvent
from agent_core.models.settings import RetrySettings

FALLBACK_ADVICE = ", or name another model to take over in fallback_models (config.toml)"


class ResilientModel:
    def __init__(
        self,
        chain: Sequence[Model],
        retry: RetrySettings,
        *,
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        assert chain, "at least one model"
        self._chain = tuple(chain)
        self._retry = retry
        self._sleep = sleep
        self._jitter = jitter
        self._active = self._chain[0]

    @property
    def name(self) -> str:
        return self._active.name

    @property
    def context_window(self) -> int:
        return self._active.context_window

    @property
    def accepts_images(self) -> bool:
        return self._active.accepts_images

    def cost(
        self, input_tokens: int, output_tokens: int, cache_read: int = 0, cache_write: int = 0
    ) -> float | None:
        return self._active.cost(input_tokens, output_tokens, cache_read, cache_write)

    def warm_up(self) -> None:
        self._chain[0].warm_up()

    async def connect_ahead(self) -> None:
        await self._chain[0].connect_ahead()  # where every request begins

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        last_error: ModelError | None = None
        for position, model in enumerate(self._chain):
            if position:
                self._active = model
                yield StatusNotice(
                    "warning",
                    f"Switched to fallback model {model.name}",
                    f"{self._chain[position - 1].name}: {last_error}",
                )
            for attempt in range(1, self._retry.max_attempts + 1):
                streamed = False
                try:
                    async for event in model.stream(request):
                        streamed = True
                        yield event
                    return
                except (ModelNotFound, PermissionDenied) as exc:
                    if position == len(self._chain) - 1:
                        raise
                    last_error = exc
                    break
                except (ModelUnavailable, StreamInterrupted) as exc:
                    if streamed:  # the user saw part of it: repeating would duplicate it
                        raise
                    last_error = exc
                    if attempt == self._retry.max_attempts:
                        break
                    delay = self._delay(attempt, exc)
                    yield StatusNotice(
                        "warning",
                        f"{_reason(exc)}, retrying in {_seconds(delay)}",
                        f"{model.name}, attempt {attempt + 1} of {self._retry.max_attempts}",
                    )
                    await self._sleep(delay)
        name, alone = self._chain[-1].name, len(self._chain) == 1
        advice = FALLBACK_ADVICE if alone else ""
        raise ModelUnavailable(
            f"{name} failed {self._retry.max_attempts} times, the last: "
            f"{last_error}. Try again later{advice}.",
            fault=getattr(last_error, "fault", "server_error"),
        )

    def _delay(self, attempt: int, error: Exception) -> float:
        retry_after = getattr(error, "retry_after", None)
        if retry_after is not None:
            return min(float(retry_after), max(self._retry.max_delay, 60.0))
        ceiling = min(self._retry.max_delay, self._retry.base_delay * 2 ** (attempt - 1))
        return ceiling / 2 + self._jitter() * ceiling / 2  # "equal jitter": never a zero wait


def _seconds(delay: float) -> str:
    return f"{delay:.0f} s" if delay >= 1 else f"{delay:.1f} s"


def _reason(exc: Exception) -> str:
    text = str(exc)
    return (
        text.split(" (", 1)[0].capitalize()
        if isinstance(exc, ModelUnavailable)
        else "The stream broke off"
    )
