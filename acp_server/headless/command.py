"""``heron exec`` (and ``heron ask``, the same command under its old name): the command line
checked and turned into a ``Job``, the output chosen, the run made.

Usage errors (no prompt, an empty one, a ``--cwd`` that is not a folder) exit 2 before anything
starts; argparse's own exit 2 too.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from acp_server.headless.record import INTERRUPTED, USAGE_ERROR

if TYPE_CHECKING:
    import argparse

    from acp_server.headless.output import Output

HELP = "run one prompt without an editor, for scripts and CI (alias: ask)"
DESCRIPTION = (
    "Run one prompt without an editor, for scripts and CI. `heron ask` is an alias of "
    "`heron exec`, kept for compatibility."
)
EPILOG = """\
The prompt is the argument, or standard input when the argument is - or absent (and standard
input is not a terminal). The run uses the editor's agent, tools, sandbox and sessions: it is
stored like an editor's session, and --session continues one (or opens it in the editor later).

Approvals: nobody is asked. What the mode runs, runs; what would ask is refused, and the model
is told so. Dangerous commands are refused in every mode unless --allow-dangerous.

Output: the final answer on stdout, progress on stderr; --json streams one JSON object a line
on stdout instead: a "start" object, each ACP session/update item, then a "result" object.

Exit codes: 0 done, 1 failed, 2 usage error, 3 stopped for lack of approval, 130 interrupted
(Ctrl-C cancels the turn cleanly first; the session stays stored)."""


def add_exec_arguments(command: argparse.ArgumentParser) -> None:
    """``heron exec``'s arguments (``heron ask`` takes the same)."""
    from agent_core.modes import MODES

    command.add_argument("prompt", nargs="?", default="-", help="what to do; - reads stdin")
    command.add_argument("--cwd", help="the workspace (default: the current directory)")
    command.add_argument("--model", help="<provider>:<model>, overriding HERON_MODEL and config")
    command.add_argument(
        "--mode", choices=MODES, help="the approval mode (default: config.toml's default_mode)"
    )
    command.add_argument(
        "--allow-dangerous", action="store_true", help="run dangerous commands the mode would run"
    )
    command.add_argument("--json", action="store_true", help="stream JSON lines on stdout")
    command.add_argument("--session", help="continue this stored session (its id)")


def run_exec(args: argparse.Namespace, stdin: TextIO, out: TextIO) -> int:
    """``heron exec`` with parsed ``args``; the exit code."""
    try:
        return _run(args, stdin, out)
    except KeyboardInterrupt:  # before the run took the signals over
        return INTERRUPTED


def _run(args: argparse.Namespace, stdin: TextIO, out: TextIO) -> int:
    from acp_server.headless.run import Job, execute

    cwd = Path(args.cwd or ".").resolve()
    prompt = args.prompt
    problem = None
    if not cwd.is_dir():
        problem = f"--cwd {args.cwd}: not a folder"
    elif prompt == "-":
        if stdin.isatty():
            problem = "no prompt: give one as the argument, or on standard input"
        else:
            prompt = stdin.read()
    if problem is None and not prompt.strip():
        problem = "the prompt is empty"
    if problem is not None:
        sys.stderr.write(f"heron exec: {problem}\n")
        return USAGE_ERROR
    job = Job(
        prompt,
        cwd,
        model=args.model,
        mode=args.mode,
        allow_dangerous=args.allow_dangerous,
        session=args.session,
        default_mode=_default_mode() if args.session and not args.mode else "ask",
    )
    return execute(job, _output(args.json, out))


def _output(json: bool, out: TextIO) -> Output:
    from acp_server.headless.output import JsonOutput, TextOutput

    if json:
        return JsonOutput(out, sys.stderr)
    return TextOutput(out, sys.stderr, live=sys.stderr.isatty())


def _default_mode() -> str:
    """config.toml's (or HERON_MODE's) default mode: a continued session runs in it, as a new
    one would, unless ``--mode`` says otherwise."""
    from agent_core.config import load_settings
    from agent_core.errors import ConfigError
    from agent_core.modes import MODES

    try:
        mode = load_settings().default_mode
    except ConfigError:
        return "ask"
    return mode if mode in MODES else "ask"
