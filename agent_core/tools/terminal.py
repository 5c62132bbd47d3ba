"""``terminal`` and ``process``: run commands in the workspace, in the foreground or background,
or interactively (a pseudo-terminal the model types into through ``process``).

A command passes the approval gate (``approval.gate``: judged, approved, checkpointed), then
runs inside the session's sandbox:
in the editor's terminal when it offers one (the user watches the output live; the editor runs
the sandbox launcher), otherwise as a local subprocess in its own process group. When the
sandbox refuses what a command tried, the user is offered, once, to run it again outside.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from agent_core.approval.gate import admit
from agent_core.approval.permissions import ApprovalRequest
from agent_core.errors import ToolError
from agent_core.events import NoticeRaised, TerminalContent, TextContent, ToolCallUpdated, ToolKind
from agent_core.ports.keys import Key, keystrokes
from agent_core.ports.runner import CommandResult
from agent_core.safety.policy import Command, Unconfined
from agent_core.safety.sandbox.confinement import Launch
from agent_core.tools.arguments import Arguments
from agent_core.tools.base import ToolContext

OUTPUT_LIMIT = 30_000
SHELL = "/bin/sh"
# In front of a command that is not interactive: its stdin closed, whichever runner runs it (an
# editor's terminal may hand it a terminal nobody types into). ``$0 "$@"`` is the shell after it.
STDIN_CLOSED = (SHELL, "-c", 'exec "$0" "$@" </dev/null')


class TerminalArguments(Arguments):
    command: str = Field(
        min_length=1, description="A shell command, run by /bin/sh in the workspace root."
    )
    timeout: int = Field(120, ge=1, le=1800, description="Seconds before the command is killed.")
    background: bool = Field(
        False, description="Start it and return at once (servers, watchers); see `process`."
    )
    interactive: bool = Field(
        False,
        description=(
            "Run it in a pseudo-terminal, in the background, for a program that asks questions "
            "(a script's input(), npm init, a REPL): returns what it printed and whether it "
            "waits for input; answer with process(action='send')."
        ),
    )


class RunCommand:
    name = "terminal"
    kind: ToolKind = "execute"
    read_only = False
    arguments = TerminalArguments
    description = (
        "Run a shell command in the workspace root and return its output and exit code. Use "
        "background=true for servers and watchers, then the process tool to read or stop them. "
        "Commands run in a sandbox: they may write the workspace, a private /tmp and package "
        "caches; credential folders are hidden. Commands get no input: stdin is closed, so a "
        "prompt fails at once; pagers print (PAGER=cat) and editors return at once "
        "(GIT_EDITOR=true; git rebase -i fails: prefer flags such as -m, --yes, --no-edit). "
        "When a program must be answered (it asks questions, a REPL), start it with "
        "interactive=true and answer it with process(action='send')."
    )

    def title(self, arguments: Mapping[str, Any]) -> str:
        command = str(arguments.get("command", ""))
        how = " interactively" if arguments.get("interactive") else ""
        return f"Run `{command}`{how}" if command else "Run a command"

    async def run(self, arguments: TerminalArguments, context: ToolContext) -> str:
        command = arguments.command
        title = self.title({"command": command, "interactive": arguments.interactive})
        shown = (TextContent(f"$ {command}"),)
        if notice := context.sandbox.notice():  # before any question: it explains them
            await context.report(NoticeRaised("warning", "Commands run without a sandbox", notice))
        request = ApprovalRequest(context.call_id, title, "execute", content=shown)
        writable = context.permissions.mode != "plan"  # as the command was judged
        await admit(context, Command(command), request)
        shell = [SHELL, "-c", command]
        if arguments.interactive:
            return await _start_interactive(shell, writable, context)
        shell = [*STDIN_CLOSED, *shell]
        if arguments.background:
            launch = context.sandbox.launch(shell, writable=writable)  # released with the session
            process_id = await context.runner.start(
                launch.argv, cwd=context.workspace.roots[0], output_limit=OUTPUT_LIMIT
            )
            return (
                f"Started in the background as {process_id}. "
                f"Read it with process(id={process_id!r}, action='output')."
            )
        launch = context.sandbox.launch(shell, writable=writable)
        result = await _run(launch, arguments.timeout, context)
        note = ""
        stopped = launch.confined and not result.timed_out and result.exit_code != 0
        if stopped and (why := context.sandbox.refusal(result.output)):
            action = Unconfined(command, why)
            again = ApprovalRequest(
                context.call_id, f"Run `{command}` outside the sandbox?", "execute", content=shown
            )
            try:
                await admit(context, action, again)
            except ToolError as refused:
                note = f"\nThe sandbox stopped it: {why}. {refused}"
            else:
                result = await _run(context.sandbox.unconfined(shell), arguments.timeout, context)
                note = "\n(run again outside the sandbox, as the user allowed)"
        report = describe(result, arguments.timeout) + note
        if result.timed_out or result.exit_code != 0:
            raise ToolError(report)
        return report


async def _start_interactive(shell: list[str], writable: bool, context: ToolContext) -> str:
    """The command started in a pseudo-terminal of its own, inside the sandbox; what it printed
    once it settled (it waits for input, ends, or a few seconds pass)."""
    from agent_core.ports.pty_process import with_terminal

    launch = context.sandbox.launch(with_terminal(shell), writable=writable)
    process_id = await context.runner.start(
        launch.argv, cwd=context.workspace.roots[0], output_limit=OUTPUT_LIMIT, interactive=True
    )
    result = await context.runner.output(process_id)
    how = f"process(id={process_id!r}, action='send', input=..., keys=[...])"
    return f"Started interactively as {process_id}; answer it with {how}.\n" + describe(
        result, None
    )


async def _run(launch: Launch, time_limit: int, context: ToolContext) -> CommandResult:
    async def started(terminal_id: str | None) -> None:
        if terminal_id is not None:
            await context.report(
                ToolCallUpdated(context.call_id, content=(TerminalContent(terminal_id),))
            )

    try:
        return await context.runner.run(
            launch.argv,
            cwd=context.workspace.roots[0],
            time_limit=time_limit,
            output_limit=OUTPUT_LIMIT,
            started=started,
        )
    finally:
        context.sandbox.release(launch)


class ProcessArguments(Arguments):
    id: str = Field(description="The id `terminal` gave when it started the process.")
    action: Literal["output", "send", "kill"] = Field(
        "output",
        description="Read its output so far, send input (interactive=true processes), or stop it.",
    )
    input: str = Field("", description="With send: text to type; each newline is pressed as Enter.")
    keys: list[Key] = Field(
        default_factory=list[Key],
        description="With send: keys pressed after the text, in order (Ctrl-C interrupts).",
    )


class ManageProcess:
    name = "process"
    kind: ToolKind = "execute"
    read_only = False  # typing into a program, or stopping one: in order, one call at a time
    arguments = ProcessArguments
    description = (
        "Read the output of a background process started by `terminal`, kill it, or, for one "
        "started with interactive=true, send it text and keys (Enter, Tab, Escape, arrows, "
        "Ctrl-C, Ctrl-D...). Output and send wait briefly for it to settle and say whether it "
        "is waiting for input."
    )

    def title(self, arguments: Mapping[str, Any]) -> str:
        verb = {"kill": "Stop", "send": "Type into"}.get(str(arguments.get("action")), "Check")
        return f"{verb} {arguments.get('id', 'process')}"

    async def run(self, arguments: ProcessArguments, context: ToolContext) -> str:
        if arguments.action == "kill":
            return describe(await context.runner.kill(arguments.id), None)
        if arguments.action == "send":
            data = keystrokes(arguments.input, arguments.keys)
            if not data:
                raise ToolError("Nothing to send: give input, keys or both.")
            if arguments.input.strip():
                await _admit_typing(arguments, context)
            return describe(await context.runner.send(arguments.id, data), None)
        return describe(await context.runner.output(arguments.id), None)


async def _admit_typing(arguments: ProcessArguments, context: ToolContext) -> None:
    """Text typed into an interactive program passes the gate as a command line: the program
    may be a shell or a REPL that runs it, so starting one must not open a way around the
    judge. An answer such as a name asks where any command asks (ask, accept-edits); in full
    access only what reads as dangerous does."""
    typed = arguments.input.strip()
    title = f"Type `{typed}` into {arguments.id}"
    request = ApprovalRequest(context.call_id, title, "execute", content=(TextContent(typed),))
    await admit(context, Command(typed), request)


def describe(result: CommandResult, time_limit: int | None) -> str:
    """What the model reads of a command: its status, then its output as the terminal shows it
    (``screen.plain_text``: no escape sequences, redraws settled), which the store keeps too."""
    from agent_core.tools.screen import plain_text

    if result.running:
        status = "waiting for input" if result.waiting else "still running"
    elif result.timed_out:
        status = f"killed after the {time_limit} s time limit"
    elif result.signal:
        status = f"killed by {result.signal}"
    else:
        status = f"exit code {result.exit_code}"
    cut = "(output cut: showing the end)\n" if result.truncated else ""
    return f"{status}\n{cut}{plain_text(result.output).rstrip() or '(no output)'}"
