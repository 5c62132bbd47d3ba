"""macOS: Seatbelt, through ``/usr/bin/sandbox-exec`` and a profile generated per policy.

The profile denies by default and allows what a developer's command needs: running programs,
reading the file system except the hidden paths, writing inside the writable folders except
the protected paths (missing ones included: Seatbelt rules match paths, not files), the
system services that name lookup, preferences, certificates and DNS need (not the keychain),
and the network when the policy has one. Paths are never spliced into the profile text: they
are passed as ``-D`` parameters and read with ``(param ...)``, so no path can change the
profile. ``sandbox-exec`` is called by its absolute path, so a poisoned PATH cannot replace it.

This module is tested by the profiles it generates; it cannot run on the Linux machines CI uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct

from agent_core.safety.sandbox.policy import SandboxPolicy

SANDBOX_EXEC = "/usr/bin/sandbox-exec"
SERVICES = (
    "com.apple.system.opendirectoryd.libinfo",
    "com.apple.system.logger",
    "com.apple.system.notification_center",
    "com.apple.cfprefsd.daemon",
    "com.apple.cfprefsd.agent",
    "com.apple.trustd",
    "com.apple.trustd.agent",
    "com.apple.SystemConfiguration.configd",
    "com.apple.SystemConfiguration.DNSConfiguration",
    "com.apple.dnssd.service",
    "com.apple.coreservices.launchservicesd",
    "com.apple.PowerManagement.control",
)
BASE = """(version 1)
(deny default)
(allow process-exec process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow sysctl-read)
(allow user-preference-read)
(allow ipc-posix-sem ipc-posix-shm)
(allow pseudo-tty)
(allow file-ioctl (regex #"^/dev/tty") (literal "/dev/ptmx"))
(allow file-write-data (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper")
  (regex #"^/dev/tty") (regex #"^/dev/fd/") (literal "/dev/ptmx"))
"""


class Seatbelt(Struct, frozen=True):
    @property
    def name(self) -> str:
        return "Seatbelt (sandbox-exec)"

    @property
    def refusals(self) -> tuple[str, ...]:
        return ("Operation not permitted",)

    @property
    def dies_with_parent(self) -> bool:
        return False  # macOS has no parent-death signal: the tether stands in for one

    def command(
        self, argv: Sequence[str], policy: SandboxPolicy, unset: Sequence[str] = ()
    ) -> list[str]:
        profile, parameters = profile_for(policy)
        defines = [f"-D{name}={value}" for name, value in parameters.items()]
        environment = ["/usr/bin/env", *[f"-u{n}" for n in unset], f"TMPDIR={policy.temp}"]
        return [SANDBOX_EXEC, "-p", profile, *defines, *environment, *argv]


def profile_for(policy: SandboxPolicy) -> tuple[str, dict[str, str]]:
    """The profile text and the parameters it reads."""
    parameters: dict[str, str] = {}

    def params(prefix: str, paths: Sequence[Path]) -> list[str]:
        names: list[str] = []
        for index, path in enumerate(paths):
            name = f"{prefix}{index}"
            parameters[name] = str(path)
            names.append(name)
        return names

    hidden = params("HIDDEN_", policy.hidden)
    writable = params("WRITABLE_", (*policy.writable, policy.temp))
    protected = params("PROTECTED_", (*policy.read_only, *policy.uncreatable))
    not_hidden = " ".join(f'(require-not (subpath (param "{n}")))' for n in hidden)
    rules = [BASE.rstrip("\n")]
    rules.append(f'(allow file-read* (require-all (subpath "/") {not_hidden}))')
    inside = " ".join(f'(subpath (param "{n}"))' for n in writable)
    not_protected = " ".join(
        f'(require-not (subpath (param "{n}")))' for n in (*protected, *hidden)
    )
    rules.append(f"(allow file-write* (require-all (require-any {inside}) {not_protected}))")
    services = " ".join(f'(global-name "{s}")' for s in SERVICES)
    rules.append(f"(allow mach-lookup {services})")
    rules.append("(allow system-socket (socket-domain AF_UNIX))")
    for name in writable:  # Heron's own sockets (execute_code) live in a writable folder
        rules.append(f'(allow network-outbound (remote unix-socket (subpath (param "{name}"))))')
    if policy.network:
        rules.append("(allow system-socket)")
        rules.append("(allow network*)")
    return "\n".join(rules) + "\n", parameters
