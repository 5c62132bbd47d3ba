"""Real git repositories for tests: made in a temp folder, committed with a fixed identity and
no system or user configuration."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path


def git(*args: str, cwd: Path) -> str:
    """What ``git args`` prints in ``cwd``; fails the test when git fails."""
    environment = {
        "PATH": os.environ["PATH"],
        "HOME": str(cwd),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "u",
        "GIT_AUTHOR_EMAIL": "u@x",
        "GIT_COMMITTER_NAME": "u",
        "GIT_COMMITTER_EMAIL": "u@x",
    }
    done = subprocess.run(["git", *args], cwd=cwd, env=environment, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def repository(root: Path, *versions: Mapping[str, str]) -> list[str]:
    """A repository at ``root`` with one commit per version (file name -> text); their ids."""
    root.mkdir(parents=True)
    git("init", "-q", cwd=root)
    commits: list[str] = []
    for number, files in enumerate(versions, 1):
        for name, text in files.items():
            (root / name).write_text(text)
        git("add", "-A", cwd=root)
        git("commit", "-qm", f"version {number}", cwd=root)
        commits.append(git("rev-parse", "HEAD", cwd=root).strip())
    return commits
