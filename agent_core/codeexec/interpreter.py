"""Which Python runs a script: the workspace's own (project mode) or Heron's (strict mode).

Project mode looks for ``.venv`` in the workspace, then ``VIRTUAL_ENV``, then ``CONDA_PREFIX``,
and takes the first interpreter that runs and is at least Python 3.8; anything else falls back
to Heron's own Python, saying why.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import anyio
from msgspec import Struct

from agent_core.safety.sandbox.confinement import Launcher

MINIMUM = (3, 8)
PROBE = "import sys; print('%d.%d' % sys.version_info[:2])"
PROBE_TIMEOUT_S = 10.0


class Interpreter(Struct, frozen=True):
    python: Path
    origin: str  # "the workspace's .venv", "VIRTUAL_ENV", "CONDA_PREFIX", "Heron's own"
    note: str | None = None  # why a workspace interpreter was passed over

    @property
    def environment_root(self) -> Path | None:
        """The virtualenv or conda prefix it belongs to (None for Heron's own)."""
        return None if self.origin == HERONS else self.python.parent.parent


HERONS = "Heron's own"


def own_interpreter(note: str | None = None) -> Interpreter:
    return Interpreter(Path(sys.executable), HERONS, note)


async def project_interpreter(
    workspace: Path, environment: Mapping[str, str], sandbox: Launcher
) -> Interpreter:
    """The workspace's Python if it has a usable one, else Heron's. The workspace's own
    interpreter is the workspace's code: it is asked its version inside the sandbox."""
    candidates: list[tuple[str, Path]] = [("the workspace's .venv", workspace / ".venv")]
    for variable in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        if value := environment.get(variable):
            candidates.append((variable, Path(value)))
    problems: list[str] = []
    for origin, root in candidates:
        python = root / "bin" / "python"
        if not python.exists():
            if origin != "the workspace's .venv":
                problems.append(f"{origin} has no {python}")
            continue
        problem = await _unusable(python, workspace, environment, sandbox)
        if problem is None:
            return Interpreter(python, origin)
        problems.append(f"{origin} ({python}) {problem}")
    return own_interpreter("; ".join(problems) or None)


async def _unusable(
    python: Path, cwd: Path, environment: Mapping[str, str], sandbox: Launcher
) -> str | None:
    """Why ``python`` cannot run scripts, or None. It runs as scripts will: scrubbed
    environment, in the sandbox (read-only, for a question this small)."""
    launch = sandbox.launch([str(python), "-c", PROBE], writable=False, tether=False)
    try:
        with anyio.fail_after(PROBE_TIMEOUT_S):
            done = await anyio.run_process(
                launch.argv, check=False, stderr=subprocess.STDOUT, cwd=cwd, env=dict(environment)
            )
    except TimeoutError:
        return f"did not start within {PROBE_TIMEOUT_S:g} s"
    except OSError as exc:
        return f"cannot run ({exc.strerror})"
    finally:
        sandbox.release(launch)
    if done.returncode != 0:
        return f"is broken (exit {done.returncode})"
    try:
        major, minor = (int(part) for part in done.stdout.decode().strip().split("."))
    except ValueError:
        return "did not say its version"
    if (major, minor) < MINIMUM:
        return f"is Python {major}.{minor}, older than {MINIMUM[0]}.{MINIMUM[1]}"
    return None
