"""The ``heron`` command: ``heron acp`` for editors, and the commands people type.

``heron acp`` loads as little as it can before it answers ``initialize`` (``front_door``); the
server follows (``server``), and argparse is left out of that path altogether."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["acp"] and (len(args) == 1 or (len(args) == 3 and args[1] == "--model")):
        return run_acp(model=args[2] if len(args) == 3 else None)  # editors: no argparse to load
    import argparse

    from acp_server import __version__
    from acp_server.batch import usage as batch_usage
    from acp_server.bridge.export import FORMATS
    from acp_server.headless import command as exec_command
    from agent_core.config import heron_home
    from agent_core.modes import MODES
    from agent_core.providers import PROVIDER_ENV

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
    exec_ = commands.add_parser(
        "exec",
        aliases=["ask"],
        help=exec_command.HELP,
        description=exec_command.DESCRIPTION,
        epilog=exec_command.EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    exec_command.add_exec_arguments(exec_)
    setup = commands.add_parser(
        "setup",
        help="add Heron to an editor's agents, or choose where a workspace's commands run",
        description="Add Heron to an editor's agents (zed, jetbrains, vscode), or choose where "
        "a workspace's commands run (container, local).",
    )
    targets = setup.add_subparsers(dest="target", required=True, metavar="target")
    for editor, title in (("zed", "Zed"), ("jetbrains", "JetBrains IDEs"), ("vscode", "VS Code")):
        entry = targets.add_parser(editor, help=f"add Heron to the agents of {title}")
        entry.add_argument("--dry-run", action="store_true", help="show what would be written")
    container = targets.add_parser(
        "container",
        help="run a workspace's commands in a container (Podman or Docker)",
        description="Run the commands Heron runs in WORKSPACE (and below it) in a container: "
        'writes [execution.workspaces."<WORKSPACE>"] backend = "container" into config.toml. '
        "The image is --image, else built from --dockerfile, else made from the workspace's "
        ".devcontainer/devcontainer.json. The first command of a session there builds the image "
        "if needed and starts the container.",
    )
    container.add_argument(
        "workspace", nargs="?", metavar="WORKSPACE", help="default: the current folder"
    )
    source = container.add_mutually_exclusive_group()
    source.add_argument("--image", metavar="NAME", help="the image to run (e.g. localhost/tools)")
    source.add_argument("--dockerfile", metavar="PATH", help="a Dockerfile to build the image from")
    container.add_argument(
        "--engine", choices=("podman", "docker"), help="default: podman if installed, else docker"
    )
    container.add_argument("--dry-run", action="store_true", help="show what would be written")
    local = targets.add_parser(
        "local",
        help="run a workspace's commands on this machine again (the OS sandbox)",
        description='Write backend = "local" into WORKSPACE\'s [execution.workspaces] table in '
        "config.toml, keeping its image settings for a later `heron setup container`.",
    )
    local.add_argument(
        "workspace", nargs="?", metavar="WORKSPACE", help="default: the current folder"
    )
    local.add_argument("--dry-run", action="store_true", help="show what would be written")
    commands.add_parser(
        "doctor",
        help="check the model, each provider's key, where commands run and each editor's entry",
    )
    models = commands.add_parser(
        "models", help="list the models Heron knows: windows, output limits, images, prices"
    )
    models.add_argument("filter", nargs="?", default="", help="only names containing this")
    export = commands.add_parser(
        "export", help="write a stored session as Markdown, JSON Lines or ShareGPT"
    )
    export.add_argument("session", help="its id, or the start of one that names only it")
    export.add_argument(
        "--format", choices=tuple(FORMATS), help="default: from --out's suffix, else markdown"
    )
    export.add_argument("--out", help="the file to write (default: standard output)")
    batch = commands.add_parser(
        "batch",
        help=batch_usage.HELP,
        description=batch_usage.HELP,
        epilog=batch_usage.EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    batch.add_argument(
        "tasks", metavar="TASKS.jsonl", help="a task a line: id, prompt, workspace or repository"
    )
    batch.add_argument("--out", metavar="DIR", required=True, help="each task's files, the summary")
    batch.add_argument("--workers", metavar="N", type=int, default=1, help="at once (default 1)")
    batch.add_argument(
        "--shard", metavar="I/N", default="0/1", help="every N-th task from the I-th"
    )
    batch.add_argument(
        "--timeout", metavar="S", type=float, default=1800.0, help="a task's limit (default 1800)"
    )
    batch.add_argument("--model", help="<provider>:<model> for the tasks that name none")
    batch.add_argument("--mode", default="full-access", choices=MODES, help="default full-access")
    batch.add_argument("--retry-failed", action="store_true", help="run failed tasks again")
    batch.add_argument(
        "--allow-dangerous", action="store_true", help="heron exec's, for the tasks that do not say"
    )
    login = commands.add_parser("login", help="choose a provider and store its API key")
    login.add_argument("--provider", choices=tuple(PROVIDER_ENV))
    parsed = parser.parse_args(args)
    if parsed.command == "acp":
        return run_acp(model=parsed.model)
    return _run_terminal_command(parsed)


def _run_terminal_command(args: argparse.Namespace) -> int:
    """The commands people type; none of them is on the server's start-up path."""
    from acp_server import console
    from acp_server.jsonrpc.stdio import console as terminal

    match args.command:
        case "exec" | "ask":
            from acp_server.headless.command import run_exec

            return run_exec(args, sys.stdin, terminal())
        case "demo":
            return console.run_demo(keep=args.keep)
        case "setup" if args.target == "container":
            from acp_server.install.container_setup import run_setup_container

            return run_setup_container(
                terminal(),
                args.workspace,
                image=args.image,
                dockerfile=args.dockerfile,
                engine=args.engine,
                dry_run=args.dry_run,
            )
        case "setup" if args.target == "local":
            from acp_server.install.container_setup import run_setup_local

            return run_setup_local(terminal(), args.workspace, dry_run=args.dry_run)
        case "setup":
            from acp_server.install.editors import editors
            from acp_server.install.setup import run_setup

            return run_setup(editors()[args.target], terminal(), dry_run=args.dry_run)
        case "doctor":
            from acp_server.install.doctor import run_doctor

            return run_doctor(terminal())
        case "export":
            from acp_server.bridge.export import format_of
            from acp_server.export import run_export

            form = args.format or format_of(args.out or "") or "markdown"
            return run_export(args.session, form, args.out, terminal())
        case "batch":
            from acp_server.batch.command import run_batch_command
            from acp_server.batch.tasks import Defaults

            defaults = Defaults(args.mode, args.model, args.timeout, args.allow_dangerous)
            return run_batch_command(
                args.tasks,
                args.out,
                workers=args.workers,
                shard=args.shard,
                defaults=defaults,
                retry_failed=args.retry_failed,
                terminal=terminal(),
            )
        case "models":
            from acp_server.install.catalogue import run_models

            return run_models(terminal(), args.filter)
        case _:
            from acp_server.install.login import run_login

            return run_login(terminal(), input, provider=args.provider)


def run_acp(*, model: str | None = None) -> int:
    from acp_server.front_door import open_connection
    from acp_server.jsonrpc.stdio import claim_stdio
    from acp_server.loading import COLLECTOR
    from agent_core.config import ConfigWatch
    from agent_core.models import known
    from agent_core.models.known_cache import KEPT_FIGURES

    COLLECTOR.hold("preload", "sdk")
    in_fd, out_fd = claim_stdio()  # first: nothing may reach the protocol stream but ACP
    config = ConfigWatch(model=model)  # a bad config.toml: served without it, sessions say why
    known.keep_at(config.settings.home / KEPT_FIGURES)
    opening = open_connection(in_fd, out_fd, config.settings, problem=config.problem)
    if opening.stops and opening.greeting is None:  # stopped before the editor said a thing
        return 0
    from acp_server.server import serve  # the event loop and the rest, once initialize is answered

    return serve(in_fd, out_fd, config, opening)
