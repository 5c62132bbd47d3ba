"""The ``heron`` command and the composition root: the only place concrete classes are built."""

from __future__ import annotations

import argparse
import importlib
import logging
from collections.abc import Sequence
from datetime import date
from typing import TYPE_CHECKING, Any

import anyio

from acp_server import __version__
from acp_server.handlers.router import AcpRouter
from acp_server.handlers.state import (
    ClientInfo,
    ModelChoice,
    Restored,
    ServerState,
    SessionFactory,
    SessionParts,
    SessionSetup,
)
from acp_server.jsonrpc.connection import Connection
from acp_server.jsonrpc.transport import StdioTransport
from acp_server.logs import setup_logging, trace_message
from agent_core.config import Settings, load_settings
from agent_core.errors import ConfigError

if TYPE_CHECKING:
    from agent_core.loop.agent import Agent
    from agent_core.messages import Message
    from agent_core.sessions.store import SessionStore

log = logging.getLogger("heron")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="heron", description="Heron, a coding agent for editors.")
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
    args = parser.parse_args(argv)
    if args.command == "acp":
        return run_acp(model=args.model)
    from acp_server import console  # the terminal client is not on the server's start-up path

    if args.command == "ask":
        return console.run_ask(args.prompt, model=args.model)
    return console.run_demo(keep=args.keep)


def run_acp(*, model: str | None = None) -> int:
    transport = StdioTransport.claim()  # first: nothing may reach the protocol stream but ACP
    try:
        settings = load_settings(model=model)
    except ConfigError as exc:
        settings = load_settings(model=model, read_file=False)  # serve; sessions report it
        setup_logging(settings.log_dir, settings.log_level, trace=False)
        log.error("%s", exc)
        return _serve(transport, settings, config_error=str(exc))
    setup_logging(settings.log_dir, settings.log_level, trace=settings.trace)
    return _serve(transport, settings, config_error=None)


def _serve(transport: StdioTransport, settings: Settings, config_error: str | None) -> int:
    from agent_core.sessions.sqlite import SqliteSessionStore  # cheap: sqlite loads on open()

    connection = Connection(transport, trace=trace_message if settings.trace else None)
    store = SqliteSessionStore(settings.sessions_db)
    build_session = _session_factory(connection, settings, store, config_error)

    def preload() -> None:
        store.open()  # sqlite and the migrations, before the first session/new needs them
        _preload()

    state = ServerState(
        connection, settings, build_session, store, preload=preload, warm_up=_warm_up
    )
    anyio.run(connection.serve, AcpRouter(state))
    anyio.run(store.close)
    log.info("bye")
    return 0


def _session_factory(
    connection: Connection, settings: Settings, store: SessionStore, config_error: str | None
) -> SessionFactory:
    """How a session is assembled: the model, the tools, the store, the editor-backed ports."""

    def build(setup: SessionSetup, client: ClientInfo, restored: Restored) -> SessionParts:
        from acp_server.bridge.approver import EditorApprover
        from acp_server.bridge.modes import session_options, to_option_updates
        from acp_server.bridge.terminal import EditorTerminal
        from acp_server.bridge.transcript import TranscriptBuilder
        from acp_server.bridge.updates import to_session_update
        from acp_server.bridge.workspace import EditorWorkspace
        from acp_server.bridge.writes import WriteBehind
        from agent_core.approvals import Permissions
        from agent_core.config import child_environment
        from agent_core.context.prompt import Environment, build_system_prompt
        from agent_core.events import Event, NoticeRaised
        from agent_core.models.registry import create_model
        from agent_core.modes import Mode
        from agent_core.permission_rules import JsonRuleStore
        from agent_core.terminal import LocalTerminal

        if config_error:
            raise ConfigError(config_error)
        session_id = setup.session_id
        notices, compaction = client.can("session", "notices"), client.can("session", "compaction")

        transcript = TranscriptBuilder()

        async def send(update: dict[str, Any]) -> None:
            """Every update of the session goes out here, and into its stored transcript."""
            transcript.feed(update)
            await connection.notify("session/update", {"sessionId": session_id, "update": update})

        async def report(event: Event) -> None:
            if (
                update := to_session_update(event, notices=notices, compaction=compaction)
            ) is not None:
                await send(update)

        async def mode_changed(mode: Mode) -> None:
            await store.update(session_id, mode=mode)
            options = session_options(mode, choice.spec, choice.thought_level, settings)
            for update in to_option_updates(options, mode_changed=True):
                await send(update)

        async def search_sessions(query: str, limit: int) -> list[str]:
            hits = await store.search(query, cwd=setup.cwd, limit=limit)
            return [
                f"{h.title or 'Untitled'} ({h.session_id}): {h.snippet}"
                for h in hits
                if h.session_id != session_id
            ]

        writes = WriteBehind()

        async def save(messages: Sequence[Message], replace: bool) -> None:
            items = transcript.drain()
            await writes.submit(lambda: store.append(session_id, messages, items, replace=replace))

        spec = restored.model or settings.model or ""
        choice = ModelChoice(
            spec, create_model(spec, settings), restored.thought_level or _thought(settings)
        )
        permissions = Permissions(
            mode=restored.mode or settings.default_mode,  # type: ignore[arg-type]  # validated on the way in
            approver=EditorApprover(connection, session_id),
            rules=JsonRuleStore(settings.permissions_file, setup.cwd),
            on_mode_change=mode_changed,
        )
        terminal = (
            EditorTerminal(connection, session_id)
            if client.can("terminal")
            else LocalTerminal(child_environment(settings.keep_environment))
        )
        workspace = EditorWorkspace(
            connection,
            session_id,
            (setup.cwd, *setup.additional_directories),
            read_via_editor=client.can("fs", "readTextFile"),
            write_via_editor=client.can("fs", "writeTextFile"),
        )

        def prompt_now() -> tuple[str, list[NoticeRaised]]:
            """The system prompt as the workspace is now, and a notice per file left out."""
            environment = Environment(
                setup.cwd, setup.additional_directories, settings.shell, date.today()
            )
            prompt = build_system_prompt(environment, choice.spec, setup.system_prompt)
            blocked = [f for f in prompt.context_files if f.blocked]
            notices = [
                NoticeRaised("warning", f"Ignored {f.path.name}", f"{f.path}: {f.blocked}")
                for f in blocked
            ]
            return prompt.text, notices

        def make_agent() -> Agent:
            from agent_core.loop.agent import Agent
            from agent_core.tools import default_toolset
            from agent_core.tools.base import ToolContext

            system_prompt, notices = prompt_now()
            return Agent(
                model=choice.model,
                tools=default_toolset(),
                system_prompt=system_prompt,
                notices=notices,
                tool_context=ToolContext(
                    "", workspace, permissions, report, terminal, search_sessions=search_sessions
                ),
                history=restored.history,
                reasoning_effort=choice.reasoning_effort,
                max_requests=settings.max_turn_requests,
                save=save,
                compact_at=settings.compact_at,
            )

        return SessionParts(
            choice, permissions, terminal, make_agent, send, transcript, prompt_now, writes
        )

    return build


def _thought(settings: Settings) -> str:
    return settings.reasoning_effort or "default"


# Loaded while the editor is still sending `session/new` (no pydantic here): first what
# `session/new` itself needs, then what the first prompt and the session methods need.
PRELOAD = (
    "agent_core.approvals",
    "agent_core.permission_rules",
    "agent_core.models.registry",
    "agent_core.terminal",
    "agent_core.context.prompt",
    "agent_core.sessions.store",
    "acp_server.bridge.approver",
    "acp_server.bridge.terminal",
    "acp_server.bridge.transcript",
    "acp_server.bridge.workspace",
    "agent_core.sessions.codec",
    "acp_server.handlers.prompt",
    "acp_server.handlers.stored",
)
# What the first prompt needs, loaded once a session exists.
WARM_UP = ("acp_server.handlers.wire", "agent_core.loop.agent", "agent_core.tools")


def _preload() -> None:
    for module in PRELOAD:
        importlib.import_module(module)


def _warm_up() -> None:
    """Import and build what the first prompt needs, off the request path."""
    for module in WARM_UP:
        importlib.import_module(module)
    from acp_server.handlers import wire

    wire.warm_up()
