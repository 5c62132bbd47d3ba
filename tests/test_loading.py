"""What loads in the background (``acp_server.loading``): the configured provider's SDK from the
moment the server reads its input, before any session asks for it."""

from __future__ import annotations

import gc
import subprocess
import sys
import time
import weakref
from pathlib import Path

import pytest

from acp_server.loading import CollectorPause, collect_young, settle
from agent_core.config import load_settings
from agent_core.models.registry import sdk_of
from tests.support.raw import RawAgent

PYDANTIC_CORE = "_pydantic_core"  # the SDKs' compiled half: what /proc/<pid>/maps shows loaded


@pytest.mark.parametrize(
    ("model", "sdk"),
    [
        ("anthropic:claude-sonnet-4-5", "anthropic"),
        ("bedrock:anthropic.claude-sonnet-4-5", "anthropic"),
        ("openai:gpt-5", "openai"),
        ("openai-chat:local-model", "openai"),
        ("openrouter:anthropic/claude-sonnet-4.5", "openai"),
        ("scripted:echo", None),
        ("no-such-provider:model", None),
        (None, None),
    ],
)
def test_each_provider_names_the_sdk_its_models_load(model: str | None, sdk: str | None) -> None:
    settings = load_settings({"HERON_HOME": "/nonexistent"}, read_file=False)
    assert sdk_of(model, settings) == sdk


def _loaded(pid: int) -> bool:
    return PYDANTIC_CORE in Path(f"/proc/{pid}/maps").read_text()


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/<pid>/maps")
def test_the_configured_providers_sdk_loads_without_waiting_for_a_session(
    agent_env: dict[str, str],
) -> None:
    """Nothing Heron loads for itself before a session uses pydantic (a test of the generated
    protocol checks that), so its compiled core mapped into the process is the SDK's import."""
    env = {**agent_env, "HERON_MODEL": "openai:gpt-bench", "OPENAI_API_KEY": "test-key"}
    with RawAgent(env) as agent:
        agent.initialize()
        deadline = time.monotonic() + 30
        while not _loaded(agent.proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _loaded(agent.proc.pid), "the SDK did not load without a session"


def test_the_collector_is_off_until_the_parts_held_have_loaded_then_they_are_frozen() -> None:
    pause = CollectorPause()
    assert gc.isenabled()
    try:
        pause.hold("sdk", "preload")
        assert not gc.isenabled()
        pause.release("sdk")
        pause.release("sdk")  # said twice: counted once
        assert not gc.isenabled()
        before = gc.get_freeze_count()
        loaded = [[] for _ in range(100)]  # what an import keeps: tracked containers
        pause.release("preload")
        assert gc.isenabled()
        assert gc.get_freeze_count() >= before + len(loaded)
    finally:
        gc.unfreeze()
        gc.enable()


def test_a_part_never_held_leaves_the_collector_alone() -> None:
    pause = CollectorPause()
    try:
        pause.release("sdk")  # a scripted model has no SDK: nothing was held for it
        assert gc.isenabled()
        assert gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()
        gc.enable()


def test_settle_collects_the_garbage_frozen_while_loading() -> None:
    class Node:
        pass

    pause = CollectorPause()
    try:
        pause.hold("preload")
        cycle = Node()
        cycle.itself = cycle  # type: ignore[attr-defined]  # garbage only the collector frees
        gone = weakref.ref(cycle)
        del cycle
        pause.release("preload")  # frozen with the rest: not collected yet
        gc.collect()
        assert gone() is not None
        settle()
        assert gone() is None
    finally:
        gc.unfreeze()
        gc.enable()


def test_the_young_are_collected_before_a_first_prompt_and_the_old_left_to_settling() -> None:
    """What a session's warm-up left in the young generations is collected once it ends, so
    that the first prompt's first collection does not scan it; the old generation waits for
    ``settle`` (a full collection is ~85 ms)."""

    class Node:
        pass

    def cycle() -> weakref.ref[Node]:
        node = Node()
        node.itself = node  # type: ignore[attr-defined]  # garbage only the collector frees
        return weakref.ref(node)

    gc.disable()
    try:
        old_holder = [Node()]
        old_holder[0].itself = old_holder[0]  # type: ignore[attr-defined]
        gc.collect()  # survives: now in the old generation
        old = weakref.ref(old_holder.pop())  # unreachable from now on, but old
        young = cycle()
        collect_young()
        assert young() is None
        assert gc.get_count()[0] < 10  # the first prompt's count starts afresh
        assert old() is not None
        gc.collect()
        assert old() is None
    finally:
        gc.enable()


def test_what_a_first_request_needs_leaves_the_command_judge_to_the_models_first_command() -> None:
    """No model request needs the judge (the bash grammar, the rule tables: ~30 ms): the first
    request goes out without it; the model's first command loads it (``test_loop``). Nor
    ``difflib``, which only an ``after_edit`` hook that changed a file needs (~0.2 MB)."""
    code = (
        "import sys, importlib, acp_server.loading as loading, acp_server.wiring, acp_server.turn;"
        "[importlib.import_module(m) for m in loading.PRELOAD + loading.WARM_UP];"
        "watched = ('agent_core.safety.judge', 'tree_sitter_bash', 'difflib');"
        "print([m for m in watched if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
