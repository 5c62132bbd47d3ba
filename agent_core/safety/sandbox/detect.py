"""Which sandbox works on this machine, or why none does and what to do about it.

Found once per process: on Linux ``bwrap`` is looked up and run once with every namespace a
real sandbox uses (a few milliseconds); its failure is explained with the kernel settings that
usually cause it. On macOS ``sandbox-exec`` ships with the system. Elsewhere there is none.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct

if TYPE_CHECKING:  # the mechanism of this machine is imported when it is found
    from agent_core.safety.sandbox.policy import Mechanism

PROBE_TIMEOUT_S = 10.0
INSTALL_BWRAP = (
    "install bubblewrap: `sudo apt install bubblewrap` (Debian, Ubuntu), "
    "`sudo dnf install bubblewrap` (Fedora), `sudo pacman -S bubblewrap` (Arch)"
)
OPT_OUT = (
    "or, where something else confines Heron (a container, a VM), set [sandbox] required = false"
)


class Availability(Struct, frozen=True):
    mechanism: Mechanism | None
    problem: str | None = None  # why there is none
    remedy: str | None = None  # what the user can do about it

    def describe(self) -> str:
        if self.mechanism is not None:
            return f"commands run in a sandbox ({self.mechanism.name})"
        return f"no sandbox: {self.problem}"


_found: dict[bool, Availability] = {}
_finding = threading.Lock()  # a second caller waits for the probe under way, not a second probe


def detect(*, network: bool) -> Availability:
    """The sandbox of this machine (found once: it does not change while Heron runs)."""
    with _finding:
        if network not in _found:
            _found[network] = _detect(network)
        return _found[network]


def _detect(network: bool) -> Availability:
    if sys.platform == "linux":
        return _linux(network)
    if sys.platform == "darwin":
        from agent_core.safety.sandbox.seatbelt import SANDBOX_EXEC, Seatbelt

        if Path(SANDBOX_EXEC).exists():
            return Availability(Seatbelt())
        return Availability(None, f"{SANDBOX_EXEC} is missing", OPT_OUT)
    return Availability(None, f"Heron has no sandbox for {sys.platform}", OPT_OUT)


def _linux(network: bool) -> Availability:
    from agent_core.safety.paths import installed
    from agent_core.safety.sandbox.bubblewrap import Bubblewrap, probe_command

    executable = installed("bwrap")
    if executable is None:
        return Availability(
            None, "bubblewrap (bwrap) is not installed", f"{INSTALL_BWRAP}; {OPT_OUT}"
        )
    try:
        done = subprocess.run(
            probe_command(executable, network=network),
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Availability(None, f"bubblewrap did not start: {exc}", OPT_OUT)
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return Availability(None, f"bubblewrap cannot create a sandbox here ({said})", _hint())
    version = subprocess.run(
        [executable, "--version"], capture_output=True, text=True, check=False
    ).stdout.split()
    return Availability(Bubblewrap(executable, version[-1] if version else ""))


def _hint() -> str:
    """What usually stops bubblewrap, read from the kernel's settings."""
    if _sysctl("kernel/apparmor_restrict_unprivileged_userns") == "1":
        return (
            "this system (Ubuntu 24.04 and later) restricts user namespaces through AppArmor: "
            "`sudo apt install apparmor-profiles` and load its bwrap-userns-restrict profile "
            f"(`sudo apparmor_parser -r /etc/apparmor.d/bwrap-userns-restrict`); {OPT_OUT}"
        )
    if _sysctl("kernel/unprivileged_userns_clone") == "0":
        return (
            f"user namespaces are off: `sudo sysctl kernel.unprivileged_userns_clone=1`; {OPT_OUT}"
        )
    if _sysctl("user/max_user_namespaces") == "0":
        return f"user namespaces are off: `sudo sysctl user.max_user_namespaces=15000`; {OPT_OUT}"
    return f"inside a container, the container must allow user namespaces; {OPT_OUT}"


def _sysctl(name: str) -> str | None:
    try:
        return Path("/proc/sys", name).read_text().strip()
    except OSError:
        return None
