"""``Hooks``: one session's hooks, as config.toml says now, and how one runs: in the session's
sandbox (writable unless the session is in plan mode), in the workspace root, with the
commands' scrubbed environment, its JSON payload on stdin, under its timeout.

Every run is shown in the editor as a tool call of its own ("Hook: <name>", kind
``execute``): it spins while the hook runs, ends completed or failed, and shows what the hook
printed, why it failed or timed out, or the change it made to a file. A notice would read, in
an editor without Heron's notices (Zed), as an italic line in the agent's message; a tool call
is where an editor already shows a command that runs, its status and its output.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import anyio
from msgspec import Struct

from agent_core.events import (
    Event,
    NoticeRaised,
    TextContent,
    ToolCallStarted,
    ToolCallUpdated,
    ToolContent,
)
from agent_core.hooks.payload import Where, encode
from agent_core.hooks.process import HookRun, run_hook_process
from agent_core.hooks.settings import HookSettings, HookSpec
from agent_core.safety.sandbox.confinement import Launcher

REFUSE = 2  # the exit status by which a hook refuses (a tool call, a prompt)
SHOWN_CHARS = 4_000
Report = Callable[[Event], Awaitable[None]]


class HookOutcome(Struct, frozen=True):
    """What one run of a hook came to; ``call_id``: its tool call in the editor."""

    spec: HookSpec
    call_id: str
    run: HookRun | None  # None: it could not be started
    problem: str | None = None  # why it failed: it did not start, timed out, exited non-zero

    @property
    def refused(self) -> bool:
        return self.run is not None and self.run.exit_code == REFUSE

    @property
    def succeeded(self) -> bool:
        return self.run is not None and self.run.exit_code == 0

    @property
    def output(self) -> str:
        """What it printed on stdout."""
        return self.run.stdout.strip() if self.run is not None else ""

    @property
    def reason(self) -> str:
        """A refusal's reason: its stderr, else its stdout."""
        if self.run is None:
            return ""
        return self.run.stderr.strip() or self.run.stdout.strip()


class Hooks:
    """The hooks of one session, run and shown."""

    def __init__(
        self,
        settings: Callable[[], HookSettings],
        *,
        session_id: str,
        roots: tuple[Path, ...],
        launcher: Launcher,
        environment: Mapping[str, str],
        report: Report,
        mode: Callable[[], str],
    ) -> None:
        """``settings``: config.toml's hooks as last read (they follow the file's changes);
        ``mode``: the session's approval mode now (plan: the hook may write nothing)."""
        self._settings = settings
        self._session_id, self._roots = session_id, roots
        self._launcher, self._environment = launcher, dict(environment)
        self.report, self._mode = report, mode
        self._told: tuple[str, ...] = ()

    def of(self, event: str, tool: str | None = None) -> tuple[HookSpec, ...]:
        return self._settings().of(event, tool)

    async def tell_problems(self) -> None:
        """Once per change of config.toml: the hook tables left out, and why."""
        problems = self._settings().problems
        if problems and problems != self._told:
            await self.report(NoticeRaised("warning", "Hooks left out", "\n".join(problems)))
        self._told = problems

    async def run(
        self, spec: HookSpec, details: Mapping[str, Any], arguments: tuple[str, ...] = ()
    ) -> HookOutcome:
        """Run ``spec`` with ``details`` in its payload and ``arguments`` on its command line;
        shown as it starts and as it ends (a failure included, never raised)."""
        call_id = f"hook-{uuid.uuid4()}"
        title = f"Hook: {spec.name} ({spec.event.replace('_', ' ')})"
        await self.report(ToolCallStarted(call_id, "hook", title, "execute"))
        await self.report(ToolCallUpdated(call_id, status="in_progress"))
        outcome = HookOutcome(spec, call_id, None, "it did not run")
        try:
            outcome = await self._run(spec, call_id, details, arguments)
        finally:  # shown as ended however it ended: never left spinning
            shown = _shown(outcome)
            status = "failed" if outcome.problem else "completed"  # a refusal is its work
            content: tuple[ToolContent, ...] = (TextContent(shown),)
            ended = ToolCallUpdated(call_id, status=status, output=shown, content=content)
            with anyio.CancelScope(shield=True):
                await self.report(ended)
        return outcome

    async def _run(
        self, spec: HookSpec, call_id: str, details: Mapping[str, Any], arguments: tuple[str, ...]
    ) -> HookOutcome:
        mode = self._mode()
        where = Where(self._session_id, self._roots[0], mode)
        stdin = encode(spec.event, spec.name, where, details)
        launch = self._launcher.launch(spec.argv(arguments), writable=mode != "plan")
        try:
            run = await run_hook_process(
                launch.argv,
                stdin,
                cwd=self._roots[0],
                environment=self._environment,
                timeout=spec.timeout,
            )
        except OSError as exc:
            return HookOutcome(spec, call_id, None, f"it could not start: {exc.strerror or exc}")
        finally:
            self._launcher.release(launch)
        return HookOutcome(spec, call_id, run, _problem(run, spec))


def _problem(run: HookRun, spec: HookSpec) -> str | None:
    if run.timed_out:
        return f"it timed out after {spec.timeout:g} s and was stopped"
    if run.exit_code is None:
        return "it was killed by a signal"
    if run.exit_code not in (0, REFUSE):
        return f"it failed with exit code {run.exit_code}"
    return None


def _shown(outcome: HookOutcome) -> str:
    """The hook's tool call's text: what came of it, then what it printed."""
    if outcome.refused:
        head = "Refused (exit code 2)"
    elif outcome.problem:
        head = f"Failed: {outcome.problem}"
    else:
        head = "Done"
    run = outcome.run
    printed = "" if run is None else "\n".join(s for s in (run.stdout, run.stderr) if s.strip())
    cut = "\n(output cut)" if run is not None and run.truncated else ""
    body = printed.strip()[:SHOWN_CHARS]
    return f"{head}\n{body}{cut}".strip()
