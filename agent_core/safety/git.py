"""Heron's own git calls, immune to the repository's configuration.

A repository can carry configuration that runs programs when git merely looks at it:
``core.fsmonitor`` on ``git status``, filter drivers on files whose timestamps changed, hooks,
pagers, external diffs. Heron reads the repository's state when a session starts, before anyone
has looked at what arrived in the folder, so every call here switches all of that off: the
system and global configuration are not read, every option that names a program is overridden,
and the repository's own filter, diff and merge drivers are blanked by name (read first with
``git config``, which runs nothing). Where a sandbox is active the calls run inside it too,
read-only and without network.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

TIMEOUT_S = 2.0
# Options that would run a program, each set to something that runs none.
HARDENING = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.editor=true",
    "core.sshCommand=false",
    "core.askPass=",
    "core.gitProxy=",
    "diff.external=",
    "credential.helper=",
    "sequence.editor=true",
    "gpg.program=false",
    "log.showSignature=false",
    "protocol.allow=never",
    "status.submoduleSummary=false",
)
ENVIRONMENT = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_EDITOR": "true",
    "LC_ALL": "C",
}
# Keys of the repository's own configuration that name a program to run.
DRIVER_KEYS = r"^(filter|diff|merge)\..*\.(clean|smudge|process|textconv|command|driver)$"
Wrap = Callable[[list[str]], list[str]]  # puts a command inside the sandbox


def _no_wrap(argv: list[str]) -> list[str]:
    return argv


def git_command(args: Sequence[str], overrides: Sequence[str] = ()) -> list[str] | None:
    """The argv of a hardened git call, or None when git is not installed."""
    git = shutil.which("git")
    if git is None:
        return None
    options = [part for setting in (*HARDENING, *overrides) for part in ("-c", setting)]
    return [git, "--no-pager", *options, *args]


@dataclass(frozen=True)
class HardenedGit:
    """``environment``: the scrubbed environment children get; ``wrap``: the sandbox."""

    environment: Mapping[str, str]
    wrap: Wrap = field(default=_no_wrap)

    def run(self, cwd: Path, args: Sequence[str]) -> str | None:
        """What ``git args`` prints in ``cwd`` with the repository's drivers blanked, or None
        if it fails."""
        return self._run(cwd, args, self._blanked_drivers(cwd))

    def summary(self, cwd: Path) -> str:
        """The branch and how many files differ from it, or why there is none."""
        branch = self._run(cwd, ["rev-parse", "--abbrev-ref", "HEAD"], [])
        if branch is None:
            return "not a git repository"
        status = self.run(cwd, ["status", "--porcelain", "--ignore-submodules=all"])
        changed = [line for line in (status or "").splitlines() if line]
        if not changed:
            return f"branch {branch}, clean"
        return f"branch {branch}, {len(changed)} changed file(s)"

    def _blanked_drivers(self, cwd: Path) -> list[str]:
        listed = self._run(cwd, ["config", "--null", "--get-regexp", DRIVER_KEYS], []) or ""
        keys = {entry.split("\n", 1)[0] for entry in listed.split("\0") if entry}
        filters = {key.rsplit(".", 1)[0] for key in keys if key.startswith("filter.")}
        return [f"{key}=" for key in sorted(keys)] + [
            f"{f}.required=false" for f in sorted(filters)
        ]

    def _run(self, cwd: Path, args: Sequence[str], overrides: Sequence[str]) -> str | None:
        command = git_command(args, overrides)
        if command is None:
            return None
        inherited = {k: v for k, v in self.environment.items() if not k.startswith("GIT_")}
        try:
            done = subprocess.run(
                self.wrap(command),
                cwd=cwd,
                capture_output=True,
                text=True,
                timeout=TIMEOUT_S,
                env={**inherited, **ENVIRONMENT},
                stdin=subprocess.DEVNULL,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None
