"""What the server loads in the background runs once, in a worker thread, and whoever needs it
meanwhile waits for that run rather than loading it again on the event loop."""

from __future__ import annotations

import threading
import time
from typing import Any

import anyio
import pytest

from acp_server.handlers.state import ServerState

pytestmark = pytest.mark.anyio


def bare_state() -> ServerState:
    nothing: Any = None  # run_once needs none of the server's parts
    return ServerState(connection=nothing, config=nothing, build_session=nothing, store=nothing)


async def test_a_later_call_waits_for_the_run_under_way_and_the_work_runs_once() -> None:
    state = bare_state()
    loop_thread = threading.get_ident()
    runs: list[int] = []  # the thread each run happened in
    ended: list[tuple[str, int]] = []  # (caller, runs finished when its call returned)

    def work() -> None:
        time.sleep(0.2)
        runs.append(threading.get_ident())

    async def call(caller: str) -> None:
        await state.run_once("parts", work)
        ended.append((caller, len(runs)))

    async with anyio.create_task_group() as group:
        group.start_soon(call, "first")
        await anyio.sleep(0.05)
        group.start_soon(call, "second")
    assert len(runs) == 1 and runs[0] != loop_thread
    assert sorted(ended) == [("first", 1), ("second", 1)]
    await call("later")  # long done: returns at once, without running it again
    assert ended[-1] == ("later", 1)


async def test_a_run_that_failed_does_not_hold_the_callers_that_wait_for_it() -> None:
    state = bare_state()
    failures: list[Exception] = []

    def broken() -> None:
        time.sleep(0.1)
        raise RuntimeError("no such module")

    async def first() -> None:
        try:
            await state.run_once("parts", broken)
        except RuntimeError as exc:
            failures.append(exc)

    async def second() -> None:
        await anyio.sleep(0.02)
        await state.run_once("parts", broken)  # returns once the first run has ended

    with anyio.fail_after(5):
        async with anyio.create_task_group() as group:
            group.start_soon(first)
            group.start_soon(second)
    assert len(failures) == 1
