"""Running ripgrep (from its PyPI wheel): fast, and it respects .gitignore.

ripgrep opens every ``.gitignore`` (``.ignore``, ``.rgignore``) it walks past, so a FIFO by
that name makes it wait for ever; a search still running after ``STALL_S`` has the folder
looked at for one (``safety.blockers``), and stops at once with the file named if it is there.
"""

from __future__ import annotations

import subprocess
import sysconfig
from functools import cache
from pathlib import Path

import anyio

from agent_core.errors import ToolError
from agent_core.safety.blockers import READ_BY_RIPGREP, STALL_S, because, find_blockers
from agent_core.safety.paths import installed

TIME_LIMIT_S = 60.0
# Version control internals are never results, even when a glob such as "*" matches them (a
# glob given later on rg's command line wins, so these go after the caller's own).
NEVER_SEARCHED = [f"--glob=!{name}" for name in (".git", ".hg", ".svn", ".jj")]


@cache
def rg_binary() -> str:
    bundled = Path(sysconfig.get_path("scripts")) / "rg"
    found = str(bundled) if bundled.exists() else installed("rg")
    if found is None:
        raise ToolError("ripgrep (rg) is not installed; reinstall heron-agent")
    return found


async def ripgrep(arguments: list[str], cwd: Path) -> str:
    """rg's stdout; "no matches" is an empty string, errors are ``ToolError``s."""
    blocked: list[str] = []  # why the search cannot end, once known
    result: subprocess.CompletedProcess[bytes] | None = None

    async def look_for_blockers(stop: anyio.CancelScope) -> None:
        await anyio.sleep(STALL_S)
        found = await anyio.to_thread.run_sync(
            find_blockers, cwd, READ_BY_RIPGREP, abandon_on_cancel=True
        )
        if found:
            blocked.append(because(found, "ripgrep"))
            stop.cancel()  # the search is killed with it

    try:
        with anyio.fail_after(TIME_LIMIT_S):
            async with anyio.create_task_group() as group:
                group.start_soon(look_for_blockers, group.cancel_scope)
                result = await anyio.run_process(
                    [rg_binary(), *arguments], cwd=cwd, check=False, stdin=subprocess.DEVNULL
                )
                group.cancel_scope.cancel()  # the search ended: no need to look
    except TimeoutError:
        raise ToolError(
            f"the search took over {TIME_LIMIT_S:.0f} s; narrow it with path or glob"
        ) from None
    if blocked or result is None:
        raise ToolError(f"the search cannot run here: {blocked[0] if blocked else 'stopped'}.")
    if result.returncode == 1:
        return ""
    if result.returncode != 0:
        message = result.stderr.decode(errors="replace").strip().splitlines()
        raise ToolError(
            f"search failed: {message[-1] if message else 'rg exited ' + str(result.returncode)}"
        )
    return result.stdout.decode(errors="replace")
