"""Retries, backoff, Retry-After and fallback, with models written for the test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from agent_core.errors import (
    AuthenticationFailed,
    BadRequest,
    BillingProblem,
    ContextOverflow,
    ModelConfigError,
    ModelNotFound,
    ModelUnavailable,
    PermissionDenied,
    StreamInterrupted,
)
from agent_core.messages import AssistantMessage, TextPart, UserMessage
from agent_core.models.base import (
    ModelRequest,
    ResponseCompleted,
    StatusNotice,
    StreamEvent,
    TextDelta,
)
from agent_core.models.resilient import ResilientModel
from agent_core.models.settings import RetrySettings
from tests.support.models import UnpricedModel

pytestmark = pytest.mark.anyio
REQUEST = ModelRequest("sys", (UserMessage((TextPart("hi"),)),))


class FlakyModel(UnpricedModel):
    """Fails with the given errors, one per call, then answers "ok"."""

    def __init__(
        self, name: str, failures: list[Exception], *, fail_after_text: bool = False
    ) -> None:
        self.name = name
        self.context_window = 1000
        self.accepts_images = False
        self.calls = 0
        self._failures = failures
        self._fail_after_text = fail_after_text

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        self.calls += 1
        if self._failures:
            if self._fail_after_text:
                yield TextDelta("partial")
            raise self._failures.pop(0)
        yield TextDelta("ok")
        yield ResponseCompleted(AssistantMessage((TextPart("ok"),)), "end_turn")


class Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


async def collect(model: ResilientModel) -> list[Any]:
    return [event async for event in model.stream(REQUEST)]


async def test_transient_faults_are_retried_with_visible_notices() -> None:
    flaky = FlakyModel(
        "p:m",
        [ModelUnavailable("rate limited (429)", retry_after=3), ModelUnavailable("overloaded")],
    )
    sleeps = Sleeps()
    model = ResilientModel(
        [flaky],
        RetrySettings(max_attempts=4, base_delay=1, max_delay=8),
        sleep=sleeps,
        jitter=lambda: 0.5,
    )
    events = await collect(model)
    assert flaky.calls == 3
    assert sleeps.delays == [3, 1.5]  # Retry-After honoured, then backoff 2 s with equal jitter
    notices = [e for e in events if isinstance(e, StatusNotice)]
    assert [n.title for n in notices] == [
        "Rate limited, retrying in 3 s",
        "Overloaded, retrying in 2 s",
    ]
    assert isinstance(events[-1], ResponseCompleted)


async def test_after_the_attempts_the_fallback_model_takes_over() -> None:
    primary = FlakyModel("a:one", [ModelUnavailable("down")] * 5)
    fallback = FlakyModel("b:two", [])
    model = ResilientModel(
        [primary, fallback], RetrySettings(max_attempts=2, base_delay=0), sleep=Sleeps()
    )
    events = await collect(model)
    assert primary.calls == 2 and fallback.calls == 1
    assert any(
        isinstance(e, StatusNotice) and "Switched to fallback model b:two" in e.title
        for e in events
    )
    assert model.name == "b:two"


async def test_giving_up_raises_a_clear_error() -> None:
    model = ResilientModel(
        [FlakyModel("a:one", [ModelUnavailable("down")] * 9)],
        RetrySettings(max_attempts=3, base_delay=0),
        sleep=Sleeps(),
    )
    with pytest.raises(ModelUnavailable, match="a:one failed 3 times"):
        await collect(model)


async def test_a_fault_after_output_is_not_retried() -> None:
    flaky = FlakyModel("a:one", [StreamInterrupted("cut")], fail_after_text=True)
    model = ResilientModel([flaky], RetrySettings(max_attempts=4, base_delay=0), sleep=Sleeps())
    with pytest.raises(StreamInterrupted):
        await collect(model)
    assert flaky.calls == 1


async def test_configuration_errors_are_not_retried() -> None:
    flaky = FlakyModel("a:one", [ModelConfigError("bad key")])
    model = ResilientModel([flaky, FlakyModel("b:two", [])], RetrySettings(), sleep=Sleeps())
    with pytest.raises(ModelConfigError):
        await collect(model)
    assert flaky.calls == 1


@pytest.mark.parametrize("error", [ModelNotFound("no such model"), PermissionDenied("no access")])
async def test_a_model_the_provider_will_not_serve_hands_over_at_once(error: Exception) -> None:
    first, second = FlakyModel("a:gone", [error]), FlakyModel("b:here", [])
    sleeps = Sleeps()
    model = ResilientModel([first, second], RetrySettings(max_attempts=4), sleep=sleeps)
    events = await collect(model)
    [notice] = [e for e in events if isinstance(e, StatusNotice)]
    assert "Switched to fallback model b:here" in notice.title and first.calls == 1
    assert sleeps.delays == [] and model.name == "b:here"


@pytest.mark.parametrize(
    "error",
    [
        AuthenticationFailed("key"),
        BillingProblem("credit"),
        BadRequest("bad"),
        ContextOverflow("big"),
    ],
)
async def test_what_another_try_or_model_would_not_fix_is_raised_at_once(error: Exception) -> None:
    first, second = FlakyModel("a:one", [error]), FlakyModel("b:two", [])
    model = ResilientModel([first, second], RetrySettings(max_attempts=4), sleep=Sleeps())
    with pytest.raises(type(error)):
        await collect(model)
    assert first.calls == 1 and second.calls == 0


async def test_the_last_model_that_is_not_found_says_so_itself() -> None:
    model = ResilientModel(
        [FlakyModel("a:gone", [ModelNotFound("no model 'gone'")])], RetrySettings()
    )
    with pytest.raises(ModelNotFound, match="no model 'gone'"):
        await collect(model)
