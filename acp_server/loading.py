"""What loads in the background, and when: the order a first prompt needs it in.

Most of a first prompt's wait is importing. The editor's first requests need little of it
(``front_door`` answers ``initialize`` and a ``session/new`` sent at once), so the rest loads
after them, off the event loop:

1. **PRELOAD**, once ``initialize`` is answered (``ServerState.load_ahead``): what building a
   session and the session methods need.
2. **WARM_UP**, then: what a turn needs to send its first model request (the loop, the tools
   and their schemas).
3. **The provider's SDK**, then (``start_sdk``), in a thread of its own: the slowest part by
   far (``import anthropic`` ~1 s, ``import openai`` ~0.45 s here), which a prompt typed a
   second or two after the session opened should find loaded.

   One step after another, never side by side: all of it shares one interpreter lock, so
   side by side none ends sooner, and the handing over of the lock costs. With the SDK begun
   as ``initialize`` was answered, beside the server's own load, a request sent meanwhile (a
   cancel) waited ~250 ms to be read instead of ~100, and a first prompt sent at once took
   ~30-90 ms longer.
4. **What no model request needs**, once a session is warm and no prompt of it runs
   (``handlers/sessions.py``): a prompt sent at once goes first, since every step shares one
   interpreter lock. The model picker's lists, and the workspace's watcher. The command judge
   (the bash grammar, the rule tables) is not among them: it loads when the model begins a
   command, while its arguments stream (``approval.gate.begin_loading_judge``), so that a
   session that runs none never holds it (~1.5 MB), nor pays for it beside a prompt.
5. **The young collected**, once a session's follow-up has ended (``collect_young``): the
   young generations the warm-up filled, collected while the user types (~1 ms), so that the
   session's first prompt does not pay for scanning them in its first collection (0.2-0.3 ms
   of it, where a later prompt pays none).
6. **Settling**, once the first prompt is answered (``settle``): what the loading left behind
   collected, and what it built frozen out of the garbage collector's way, so that no later
   turn pays a full collection over it. The pause lands while the user reads an answer: run
   when the warm-up ends, it could land on a prompt typed meanwhile.

The garbage collector is off until the SDK and PRELOAD are in (``COLLECTOR``).

Each step runs in a worker thread; an import a request needs meanwhile waits on Python's
module lock, never twice. The generated wire models (pydantic's schema of the protocol) are in
none of them: plain params are read by hand (``handlers.plain_params``).
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import threading

from agent_core.config import Settings

# Loaded while the editor is still sending `session/new` (no pydantic here): first what
# `session/new` itself needs, then what the first prompt and the session methods need.
PRELOAD = (
    "agent_core.approval.permissions",
    "agent_core.approval.rules",
    "agent_core.models.registry",
    "agent_core.mcp.pool",
    "agent_core.ports.runner",
    "agent_core.safety.git",
    "agent_core.safety.secrets",
    "agent_core.safety.sandbox.confinement",
    "agent_core.checkpoints.session",
    "agent_core.context.prompt",
    "agent_core.sessions.store",
    "acp_server.bridge.approver",
    "acp_server.bridge.questions",
    "acp_server.bridge.editor_terminal",
    "acp_server.bridge.transcript",
    "agent_core.diagnostics.pool",
    "acp_server.bridge.diagnostics",
    "acp_server.bridge.workspace",
    "agent_core.sessions.codec",
    "acp_server.handlers.prompt",
    "acp_server.handlers.stored",
)
# What the first prompt's turn needs, loaded after PRELOAD: the turn, then what
# building the session's agent imports (``wiring.make_agent``, on the event loop).
WARM_UP = (
    "acp_server.turn",
    "agent_core.hooks.prompts",
    "acp_server.bridge.linked",
    "acp_server.bridge.failures",
    "agent_core.loop.agent",
    "agent_core.loop.meter",
    "agent_core.tools",
    "agent_core.tools.switched",
    "agent_core.tools.execute_code",
    "agent_core.tools.memory",
    "agent_core.tools.skill",
    "agent_core.delegation.tool",
    "agent_core.hooks.tools",
    "agent_core.mcp.tool",
    "agent_core.sessions.search",
    "agent_core.safety.policy",
)


class CollectorPause:
    """The cyclic garbage collector off while Heron loads, and what loaded frozen after.

    Importing makes almost no garbage (~800 objects in 3,700 modules), yet the collector, which
    counts allocations, scans the growing heap again and again meanwhile: ~15% of ``import
    anthropic``. So it is off from the start until every part begun (``hold``) has ended
    (``release``); then all that loaded is frozen (``gc.freeze``: not scanned again until
    ``settle`` collects once over everything) and the collector is back on.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._parts: set[str] = set()

    def hold(self, *parts: str) -> None:
        with self._lock:
            if not self._parts:
                gc.disable()
            self._parts.update(parts)

    def release(self, part: str) -> None:
        with self._lock:
            if part not in self._parts:
                return
            self._parts.discard(part)
            if not self._parts:
                gc.freeze()
                gc.enable()


COLLECTOR = CollectorPause()


def start_sdk(settings: Settings) -> None:
    """Start importing the configured model's SDK in a daemon thread. Which SDK that is is
    looked up there too: the model registry is an import the main thread need not wait for. A
    failure is left to the session, which says it when it builds the model."""
    threading.Thread(target=_load_sdk, args=(settings,), name="load the SDK", daemon=True).start()


def _load_sdk(settings: Settings) -> None:
    with contextlib.suppress(Exception):  # the session says it when it builds the model
        try:
            from agent_core.models.registry import sdk_of

            if (module := sdk_of(settings.model, settings)) is not None:
                from agent_core.models import tls

                tls.begin()  # without the interpreter lock, mostly: beside the import
                importlib.import_module(module)
        finally:
            COLLECTOR.release("sdk")


def preload() -> None:
    try:
        for module in PRELOAD:
            importlib.import_module(module)
    finally:
        COLLECTOR.release("preload")


def warm_up() -> None:
    """Import what a first prompt's model request needs, off the request path."""
    for module in WARM_UP:
        importlib.import_module(module)


def collect_young() -> None:
    """The two young generations collected (never the old one: ``settle``'s, ~85 ms)."""
    gc.collect(1)


def settle() -> None:
    """Once, after the first answer: a full collection of what loading left (paid now rather
    than inside a turn), what ``COLLECTOR`` froze included, then the survivors frozen
    (``gc.freeze``): the modules, classes and tables loaded for good are never scanned again,
    which shortens every later collection."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
