"""Sandboxes for tests: the real one of this machine, or none (for tests that run no command)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_core.safety.sandbox.confinement import Confinement
from agent_core.safety.sandbox.detect import Availability, detect
from agent_core.safety.sandbox.settings import SandboxSettings


def no_sandbox(roots: tuple[Path, ...] = (Path("/"),)) -> Confinement:
    settings = SandboxSettings(enabled=False, required=False)
    return Confinement(
        Availability(None, "not needed here"),
        settings,
        roots,
        home=Path("/nonexistent"),
        heron_home=Path("/nonexistent"),
    )


def require_bubblewrap() -> Availability:
    """This machine's sandbox. `make test` installs bubblewrap on Linux; a Linux machine without
    it fails these tests with the reason instead of skipping them."""
    availability = detect(network=False)
    if availability.mechanism is None:
        pytest.fail(f"no sandbox on this machine: {availability.problem}; {availability.remedy}")
    return availability


# End-to-end modules that run commands in the real sandbox: `pytestmark = END_TO_END_SANDBOX`
# (the `bubblewrap` fixture, in conftest.py, calls `require_bubblewrap`).
END_TO_END_SANDBOX = [
    pytest.mark.skipif(os.uname().sysname != "Linux", reason="bubblewrap is Linux's"),
    pytest.mark.usefixtures("bubblewrap"),
]


def sandbox_for(root: Path, *, home: Path) -> Confinement:
    """This machine's sandbox around one workspace root (close it when done)."""
    return Confinement(
        require_bubblewrap(),
        SandboxSettings(),
        (root,),
        home=home,
        heron_home=home / ".heron",
    )
