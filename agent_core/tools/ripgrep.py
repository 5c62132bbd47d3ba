"""Running ripgrep (from its PyPI wheel): fast, and it respects .gitignore."""

from __future__ import annotations

import shutil
import subprocess
import sysconfig
from functools import cache
from pathlib import Path

import anyio

from agent_core.errors import ToolError

TIME_LIMIT_S = 60.0
# Version control internals are never results, even when a glob such as "*" matches them (a
# glob given later on rg's command line wins, so these go after the caller's own).
NEVER_SEARCHED = [f"--glob=!{name}" for name in (".git", ".hg", ".svn", ".jj")]


@cache
def rg_binary() -> str:
    bundled = Path(sysconfig.get_path("scripts")) / "rg"
    found = str(bundled) if bundled.exists() else shutil.which("rg")
    if found is None:
        raise ToolError("ripgrep (rg) is not installed; reinstall heron-agent")
    return found


async def ripgrep(arguments: list[str], cwd: Path) -> str:
    """rg's stdout; "no matches" is an empty string, errors are ``ToolError``s."""
    try:
        with anyio.fail_after(TIME_LIMIT_S):
            result = await anyio.run_process(
                [rg_binary(), *arguments], cwd=cwd, check=False, stdin=subprocess.DEVNULL
            )
    except TimeoutError:
        raise ToolError(
            f"the search took over {TIME_LIMIT_S:.0f} s; narrow it with path or glob"
        ) from None
    if result.returncode == 1:
        return ""
    if result.returncode != 0:
        message = result.stderr.decode(errors="replace").strip().splitlines()
        raise ToolError(
            f"search failed: {message[-1] if message else 'rg exited ' + str(result.returncode)}"
        )
    return result.stdout.decode(errors="replace")
