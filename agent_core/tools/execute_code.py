"""``execute_code``: the model writes a Python script that calls Heron's tools; only what it
prints comes back. Many steps, one model turn.

The script's tool calls are dispatched exactly like the model's own: the same tools, the same
approval policy, and each one shown in the editor as its own tool call (with its diff and its
permission question), so nothing a script does is out of sight.
"""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
from msgspec.structs import replace
from pydantic import Field

from agent_core.approval.gate import admit
from agent_core.approval.permissions import ApprovalCancelled, ApprovalRequest
from agent_core.codeexec.interpreter import Interpreter, own_interpreter, project_interpreter
from agent_core.codeexec.runner import (
    ScriptHost,
    ScriptRun,
    host_interpreter,
    run_hosted,
    run_script,
)
from agent_core.codeexec.settings import CodeExecutionSettings
from agent_core.codeexec.stub import StubTool, python_name, signature
from agent_core.errors import ToolError
from agent_core.events import (
    Event,
    NoticeRaised,
    TextContent,
    ToolCallStarted,
    ToolCallUpdated,
    ToolKind,
)
from agent_core.messages import ToolCallPart, ToolResultPart
from agent_core.safety.policy import Script
from agent_core.tools.arguments import Arguments
from agent_core.tools.base import Tool, ToolContext, arguments_schema, call_title
from agent_core.tools.screen import plain_text

RunTool = Callable[[ToolCallPart, ToolContext], Awaitable[ToolResultPart]]
SCRIPTABLE = (
    *("read_file", "edit_file", "write_file", "search", "find_files", "terminal"),
    *("web_fetch", "web_search"),
)
TITLE = "Run a Python script"


class ExecuteCodeArguments(Arguments):
    code: str = Field(
        min_length=1,
        description="A complete Python script. `import heron_tools` and call its functions; "
        "print what the next step needs: only the script's output comes back.",
    )


class ExecuteCode:
    name = "execute_code"
    kind: ToolKind = "execute"
    read_only = False
    arguments = ExecuteCodeArguments

    def __init__(
        self,
        settings: CodeExecutionSettings,
        environment: Mapping[str, str],
        tools: Mapping[str, Tool],
        run_tool: RunTool,
        host: ScriptHost | None = None,  # where scripts run when not here: the container
    ) -> None:
        self._settings, self._environment = settings, environment
        self._host = host
        self._tools = tools  # a live view: the tools switched off in the mode are not in it
        self._run_tool = run_tool

    @property
    def _stubs(self) -> list[StubTool]:
        """The ``heron_tools`` functions: one per tool a script may call now."""
        return [
            StubTool(name, tool.description, arguments_schema(tool.arguments))
            for name, tool in sorted(self._tools.items())
        ]

    @property
    def description(self) -> str:
        return _describe(self._stubs, self._settings)

    def title(self, arguments: Mapping[str, Any]) -> str:
        return TITLE

    async def run(self, arguments: ExecuteCodeArguments, context: ToolContext) -> str:
        script = TextContent(f"```python\n{arguments.code.rstrip()}\n```")
        await context.report(ToolCallUpdated(context.call_id, content=(script,)))
        if notice := context.sandbox.notice():  # before any question: it explains them
            await context.report(NoticeRaised("warning", "Scripts run without a sandbox", notice))
        if not hasattr(socket, "AF_UNIX"):
            raise ToolError("execute_code needs Unix domain sockets, which this system lacks.")
        request = ApprovalRequest(context.call_id, TITLE, "execute", content=(script,))
        await admit(context, Script(), request)
        interpreter = await self._interpreter(context)
        calls = _ScriptCalls(self._tools, self._run_tool, context)
        result: ScriptRun | None = None
        try:
            with anyio.CancelScope() as running:
                calls.stop = running.cancel
                result = await self._run(arguments.code, calls, interpreter, context)
        finally:
            with anyio.CancelScope(shield=True):
                await calls.close_open()
        if result is None:
            raise ApprovalCancelled  # the user cancelled a question one of its calls asked
        text = plain_text(result.report(self._settings, interpreter))  # as a terminal shows it
        if result.status == "error" and (why := context.sandbox.refusal(result.stderr)):
            text += (
                f"\nThe sandbox stopped it: {why}. Run that step with the terminal tool, which "
                "offers the user to run a command outside the sandbox."
            )
        await context.report(ToolCallUpdated(context.call_id, content=(script, TextContent(text))))
        if result.status != "success":
            raise ToolError(text)
        return text

    async def _run(
        self, code: str, calls: _ScriptCalls, interpreter: Interpreter, context: ToolContext
    ) -> ScriptRun:
        workspace = context.workspace.roots[0] if self._settings.mode == "project" else None
        if self._host is not None:
            return await run_hosted(
                code,
                self._stubs,
                calls.dispatch,
                host=self._host,
                interpreter=interpreter,
                workspace=workspace,
                limits=self._settings,
            )
        return await run_script(
            code,
            self._stubs,
            calls.dispatch,
            interpreter=interpreter,
            workspace=workspace,
            environment=self._environment,
            limits=self._settings,
            sandbox=context.sandbox,
        )

    async def _interpreter(self, context: ToolContext) -> Interpreter:
        if self._host is not None:
            return await host_interpreter(self._host)
        if self._settings.mode == "strict":
            return own_interpreter()
        return await project_interpreter(
            context.workspace.roots[0], self._environment, context.sandbox
        )


class _ScriptCalls:
    """One run's tool calls: each dispatched like a model's call and shown as its own."""

    def __init__(self, tools: Mapping[str, Tool], run_tool: RunTool, context: ToolContext) -> None:
        self._tools, self._run_tool, self._context = tools, run_tool, context
        self._count = 0
        self._open: set[str] = set()
        self.stop: Callable[[], None] = lambda: None  # ends the run (and kills the script)

    async def dispatch(self, name: str, arguments: dict[str, Any]) -> str:
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(sorted(self._tools))
            raise ToolError(f"No tool {name!r} for scripts; available: {known}.")
        if name == "terminal":
            # a script waits for its commands, and nobody types into them
            arguments = {**arguments, "background": False, "interactive": False}
        self._count += 1
        call_id = f"{self._context.call_id}.{self._count}"
        report = self._context.report
        title = call_title(name, arguments, self._tools)
        await report(ToolCallStarted(call_id, name, title, tool.kind, arguments))
        await report(ToolCallUpdated(call_id, status="in_progress", title=title))
        self._open.add(call_id)
        showed = False

        async def report_own(event: Event) -> None:
            nonlocal showed
            showed = showed or (isinstance(event, ToolCallUpdated) and event.content is not None)
            await report(event)

        nested = replace(self._context, call_id=call_id, report=report_own)
        try:
            result = await self._run_tool(ToolCallPart(call_id, name, arguments), nested)
        except ApprovalCancelled:
            self.stop()  # the user cancelled a question: the whole turn ends, the script too
            raise ToolError("The user cancelled this call's permission question.") from None
        self._open.discard(call_id)
        status = "failed" if result.is_error else "completed"
        shown = None if showed else (TextContent(result.content),)
        await report(ToolCallUpdated(call_id, status=status, output=result.content, content=shown))
        if result.is_error:
            raise ToolError(result.content)
        return result.content

    async def close_open(self) -> None:
        """Calls the script was making when it stopped are closed, never left spinning."""
        for call_id in sorted(self._open):
            await self._context.report(
                ToolCallUpdated(call_id, status="failed", output="Stopped: the script ended.")
            )
        self._open.clear()


def _describe(stubs: list[StubTool], limits: CodeExecutionSettings) -> str:
    functions = "\n".join(
        f"- heron_tools.{python_name(s.name)}({signature(s)}): {_first_sentence(s.description)}"
        for s in stubs
    )
    return (
        "Run a Python script in the workspace that calls Heron's tools, for work of many steps "
        "(search, read the matches, filter, edit several files, run the tests) in one call. "
        "Only what the script prints comes back, so print a short summary. The tools answer "
        "with the same text as when called directly and raise heron_tools.HeronToolError when "
        "they fail; edits and commands are approved as usual. Limits: "
        f"{limits.timeout:g} s, {limits.max_tool_calls} tool calls, "
        f"{limits.max_output // 1000} KB of output.\n{functions}"
    )


def _first_sentence(text: str) -> str:
    return " ".join(text.split()).split(". ")[0].rstrip(".")[:160]
