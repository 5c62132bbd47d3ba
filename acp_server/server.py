"""The ACP server, loaded once the front door has answered ``initialize``: logging, the session
store, the connection and its router, and what loads in the background. With ``wiring`` (one
session's parts), the composition root: the only place concrete classes are built."""

from __future__ import annotations

import logging
import signal
from collections.abc import Callable, Sequence

import anyio

from acp_server import loading
from acp_server.containers import WorkspaceContainers
from acp_server.front_door import STOP_SIGNALS, Opened, Opening
from acp_server.handlers.client import ClientInfo
from acp_server.handlers.router import AcpRouter
from acp_server.handlers.sessions import adopt_new_session
from acp_server.handlers.state import ServerState
from acp_server.jsonrpc.connection import SHUTDOWN_GRACE_S, Connection
from acp_server.jsonrpc.transport import StdioTransport
from acp_server.logs import setup_logging, trace_message
from acp_server.wiring import session_factory
from agent_core.config import ConfigWatch, Settings

log = logging.getLogger("heron")


def serve(in_fd: int, out_fd: int, config: ConfigWatch, opening: Opening) -> int:
    """Serve the protocol on ``in_fd``/``out_fd`` until the input ends; ``opening`` is what the
    front door read and, maybe, answered."""
    settings, redact = config.settings, _redactor(config)
    trace = settings.trace and config.problem is None
    setup_logging(settings.log_dir, settings.log_level, trace=trace, redact=redact)
    if config.problem is not None:
        log.error("%s", config.problem)
    if trace:
        for answered in (opening.greeting, opening.opened):
            if answered is not None:
                trace_message("recv", answered.request)
                for frame in answered.replay if isinstance(answered, Opened) else ():
                    trace_message("send", frame)
                trace_message("send", answered.answer)
    transport = StdioTransport(in_fd, out_fd, already_read=opening.unread)
    return _serve(transport, config, redact, opening, trace=trace)


def _redactor(config: ConfigWatch) -> Callable[[str], str]:
    """What keeps secrets out of the logs and the session store; built on first use, so
    reading the environment for secrets costs `initialize` nothing, and again when the
    settings are read again (a key saved by `heron login` is redacted from then on)."""

    built: list[tuple[Settings, Callable[[str], str]]] = []  # the last one, for its settings

    def redact(text: str) -> str:
        settings, last = config.settings, built[-1] if built else None
        if last is None or last[0] is not settings:
            from agent_core.config import secrets_to_redact
            from agent_core.safety.secrets import Redactor

            last = (settings, Redactor(secrets_to_redact(settings)))
            built[:] = [last]
        return last[1](text)

    return redact


def _serve(
    transport: StdioTransport,
    config: ConfigWatch,
    redact: Callable[[str], str],
    opening: Opening,
    *,
    trace: bool,
) -> int:
    from agent_core.diagnostics.pool import ServerPool  # pygls only with the first server
    from agent_core.models.listing import ModelLists
    from agent_core.sessions.resilient import ResilientStore
    from agent_core.sessions.sqlite import SqliteSessionStore  # cheap: sqlite loads on open()

    settings = config.settings  # what the process is set up with: its home, logs, trace
    connection = Connection(transport, trace=trace_message if trace else None)
    store = ResilientStore(SqliteSessionStore(settings.sessions_db, redact))  # never fails a turn
    lists = ModelLists(settings.home / "models.json")  # read and refreshed in the background
    containers = WorkspaceContainers()  # the container backend's, made on first use
    build_session = session_factory(connection, config, store, ServerPool(), lists, containers)

    def preload() -> None:
        store.open()  # sqlite and the migrations, before the first session/new needs them
        loading.preload()

    def probe() -> None:
        from agent_core.config import scrubbed_environment
        from agent_core.safety.sandbox.detect import detect

        detect(network=settings.sandbox.network == "allow")  # the one probe; sessions reuse it
        scrubbed_environment(settings.keep_environment)  # read once, while the probe waits

    def start_sdk() -> None:
        if config.problem is None:
            loading.start_sdk(config.settings)
        else:  # the sessions say what is wrong, and their model loads nothing
            loading.COLLECTOR.release("sdk")

    greeting = opening.greeting
    state = ServerState(
        connection,
        config,
        build_session,
        store,
        preload=preload,
        probe=probe,
        warm_up=loading.warm_up,
        start_sdk=start_sdk,
        client=greeting.client if greeting else ClientInfo(),
        model_lists=lists,
    )
    anyio.run(_serve_with_background, connection, state, opening)
    anyio.run(containers.close)
    anyio.run(store.close)
    log.info("bye")
    return 0


async def _serve_with_background(
    connection: Connection, state: ServerState, opening: Opening
) -> None:
    """Serve; what outlives a request (MCP connections) runs beside, and stops after.

    SIGTERM, SIGINT and SIGHUP end it the way end of input does: turns are cancelled, and
    terminals and MCP servers are stopped, before the process exits. A signal the front door
    held while the server loaded counts the same.
    """
    router = AcpRouter(state)
    async with anyio.create_task_group() as background:
        state.background = background
        background.start_soon(_stop_on_signal, router, background.cancel_scope, opening.stops)
        background.start_soon(state.run_once, "probe", state.probe)  # while stdin is read
        if opening.greeting is not None:  # what the server's `initialize` starts once answered
            background.start_soon(state.load_ahead)
        if (opened := opening.opened) is not None:  # answered: built before the next line is read
            if opened.stored is None:
                await adopt_new_session(state, opened.setup)
            else:
                from acp_server.handlers.stored import adopt_loaded_session

                await adopt_loaded_session(state, opened.setup, opened.stored)
        await connection.serve(router)
        if state.live is not None:
            state.live.close()  # their threads return now, not at their next timeout
        background.cancel_scope.cancel()


async def _stop_on_signal(
    router: AcpRouter, serving: anyio.CancelScope, held: Sequence[signal.Signals]
) -> None:
    with anyio.open_signal_receiver(*STOP_SIGNALS) as signals:
        received = held[0] if held else await anext(signals)  # held: before these handlers
        log.info("%s: shutting down", received.name)
        await router.input_closed()  # turns stop; their answers and saves get the grace
        serving.deadline = anyio.current_time() + SHUTDOWN_GRACE_S
