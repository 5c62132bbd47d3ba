"""The ``heron`` command and the composition root: with ``wiring`` (one session's parts), the only
place concrete classes are built."""

from __future__ import annotations

import importlib
import logging
import signal
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import anyio

from acp_server import __version__
from acp_server.handlers.router import AcpRouter
from acp_server.handlers.state import (
    ServerState,
)
from acp_server.jsonrpc.connection import SHUTDOWN_GRACE_S, Connection
from acp_server.jsonrpc.transport import StdioTransport
from acp_server.logs import setup_logging, trace_message
from acp_server.wiring import session_factory
from agent_core.config import ConfigWatch, Settings, heron_home

if TYPE_CHECKING:
    import argparse


log = logging.getLogger("heron")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["acp"] and (len(args) == 1 or (len(args) == 3 and args[1] == "--model")):
        return run_acp(model=args[2] if len(args) == 3 else None)  # editors: no argparse to load
    import argparse

    parser = argparse.ArgumentParser(
        prog="heron",
        description="Heron, a coding agent for editors.",
        epilog=f"settings: {heron_home() / 'config.toml'} (HERON_HOME moves Heron's home)",
        formatter_class=argparse.RawDescriptionHelpFormatter,  # a long path stays one line
    )
    parser.add_argument("--version", action="version", version=f"heron {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="command")
    acp = commands.add_parser(
        "acp", help="serve the Agent Client Protocol on stdin/stdout (editors run this)"
    )
    acp.add_argument("--model", help="<provider>:<model>, overriding HERON_MODEL and config.toml")
    demo = commands.add_parser(
        "demo", help="run a scripted session through `heron acp` and show it"
    )
    demo.add_argument("--keep", action="store_true", help="keep the sample project's temp dir")
    ask = commands.add_parser(
        "ask", help="send one prompt about the current directory to the model"
    )
    ask.add_argument("prompt", help="what to ask")
    ask.add_argument("--model", help="<provider>:<model>, overriding HERON_MODEL and config.toml")
    setup = commands.add_parser("setup", help="add Heron to an editor's agents")
    setup.add_argument("editor", choices=("zed", "jetbrains", "vscode"))
    setup.add_argument("--dry-run", action="store_true", help="show what would be written")
    commands.add_parser(
        "doctor", help="check the model, each provider's key and each editor's entry"
    )
    models = commands.add_parser(
        "models", help="list the models Heron knows: windows, output limits, images, prices"
    )
    models.add_argument("filter", nargs="?", default="", help="only names containing this")
    login = commands.add_parser("login", help="choose a provider and store its API key")
    login.add_argument("--provider", choices=("anthropic", "openai", "openai-chat"))
    parsed = parser.parse_args(args)
    if parsed.command == "acp":
        return run_acp(model=parsed.model)
    return _run_terminal_command(parsed)


def _run_terminal_command(args: argparse.Namespace) -> int:
    """The commands people type; none of them is on the server's start-up path."""
    from acp_server import console
    from acp_server.jsonrpc.transport import console as terminal

    match args.command:
        case "ask":
            return console.run_ask(args.prompt, model=args.model)
        case "demo":
            return console.run_demo(keep=args.keep)
        case "setup":
            from acp_server.install.editors import editors
            from acp_server.install.setup import run_setup

            return run_setup(editors()[args.editor], terminal(), dry_run=args.dry_run)
        case "doctor":
            from acp_server.install.doctor import run_doctor

            return run_doctor(terminal())
        case "models":
            from acp_server.install.catalogue import run_models

            return run_models(terminal(), args.filter)
        case _:
            from acp_server.install.login import run_login

            return run_login(terminal(), input, provider=args.provider)


def run_acp(*, model: str | None = None) -> int:
    transport = StdioTransport.claim()  # first: nothing may reach the protocol stream but ACP
    config = ConfigWatch(model=model)  # a bad config.toml: served without it, sessions say why
    settings, redact = config.settings, _redactor(config)
    trace = settings.trace and config.problem is None
    setup_logging(settings.log_dir, settings.log_level, trace=trace, redact=redact)
    if config.problem is not None:
        log.error("%s", config.problem)
    return _serve(transport, config, redact)


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


def _serve(transport: StdioTransport, config: ConfigWatch, redact: Callable[[str], str]) -> int:
    from agent_core.diagnostics.pool import ServerPool  # pygls only with the first server
    from agent_core.models.listing import ModelLists
    from agent_core.sessions.resilient import ResilientStore
    from agent_core.sessions.sqlite import SqliteSessionStore  # cheap: sqlite loads on open()

    settings = config.settings  # what the process is set up with: its home, logs, trace
    connection = Connection(transport, trace=trace_message if settings.trace else None)
    store = ResilientStore(SqliteSessionStore(settings.sessions_db, redact))  # never fails a turn
    lists = ModelLists(settings.home / "models.json")  # read and refreshed in the background
    build_session = session_factory(connection, config, store, ServerPool(), lists)

    def preload() -> None:
        store.open()  # sqlite and the migrations, before the first session/new needs them
        _preload()

    def probe() -> None:
        from agent_core.config import scrubbed_environment
        from agent_core.safety.sandbox.detect import detect

        detect(network=settings.sandbox.network == "allow")  # the one probe; sessions reuse it
        scrubbed_environment(settings.keep_environment)  # read once, while the probe waits

    state = ServerState(
        connection, config, build_session, store, preload=preload, probe=probe, warm_up=_warm_up
    )
    state.model_lists = lists
    anyio.run(_serve_with_background, connection, state)
    anyio.run(store.close)
    log.info("bye")
    return 0


async def _serve_with_background(connection: Connection, state: ServerState) -> None:
    """Serve; what outlives a request (MCP connections) runs beside, and stops after.

    SIGTERM, SIGINT and SIGHUP end it the way end of input does: turns are cancelled, and
    terminals and MCP servers are stopped, before the process exits.
    """
    router = AcpRouter(state)
    async with anyio.create_task_group() as background:
        state.background = background
        background.start_soon(_stop_on_signal, router, background.cancel_scope)
        background.start_soon(state.run_once, "probe", state.probe)  # while stdin is read
        await connection.serve(router)
        background.cancel_scope.cancel()


async def _stop_on_signal(router: AcpRouter, serving: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as signals:
        async for received in signals:
            log.info("%s: shutting down", received.name)
            await router.input_closed()  # turns stop; their answers and saves get the grace
            serving.deadline = anyio.current_time() + SHUTDOWN_GRACE_S
            return


# Loaded while the editor is still sending `session/new` (no pydantic here): first what
# `session/new` itself needs, then what the first prompt and the session methods need.
PRELOAD = (
    "agent_core.approvals",
    "agent_core.permission_rules",
    "agent_core.models.registry",
    "agent_core.mcp.pool",
    "agent_core.terminal",
    "agent_core.safety.git",
    "agent_core.safety.secrets",
    "agent_core.safety.sandbox.confinement",
    "agent_core.checkpoints.session",
    "agent_core.context.prompt",
    "agent_core.sessions.store",
    "acp_server.bridge.approver",
    "acp_server.bridge.questions",
    "acp_server.bridge.terminal",
    "acp_server.bridge.transcript",
    "agent_core.diagnostics.pool",
    "acp_server.bridge.diagnostics",
    "acp_server.bridge.workspace",
    "agent_core.sessions.codec",
    "acp_server.handlers.prompt",
    "acp_server.handlers.stored",
)
# What the first prompt needs, loaded once a session exists.
WARM_UP = (
    "acp_server.handlers.wire",
    "agent_core.loop.agent",
    "agent_core.tools",
    "agent_core.safety.policy",
    "agent_core.safety.judge",
)


def _preload() -> None:
    for module in PRELOAD:
        importlib.import_module(module)


def _warm_up() -> None:
    """Import and build what the first prompt needs, off the request path."""
    for module in WARM_UP:
        importlib.import_module(module)
    from acp_server.handlers import wire
    from agent_core.safety import shell

    wire.warm_up()
    shell.warm_up()  # the bash grammar, before the first command is judged
