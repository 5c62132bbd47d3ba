"""Linux: bubblewrap (``bwrap``), the unprivileged sandbox Flatpak is built on.

The whole file system is mounted read-only, then the writable folders are bound over it, then
the protected paths inside them read-only again (a bound path cannot be renamed away, so
``mv .git .git2`` fails too), then credential stores are covered. Later mounts override
earlier ones, so the order below is the policy. Always: a new session (no typing into the
editor's terminal), no capabilities even when run as root, a private PID namespace with its
own ``/proc`` (no other process's memory or environment), and death with its parent.
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct

from agent_core.safety.sandbox.policy import SandboxPolicy

# Parts of a fresh /proc that still reach the whole machine: sysctls (core_pattern would run a
# program as root outside the sandbox), sysrq, interrupts, buses.
KERNEL_SETTINGS = ("/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus")


class Bubblewrap(Struct, frozen=True):
    executable: str  # the absolute path of bwrap: it does not search PATH, neither do we
    version: str = ""

    @property
    def name(self) -> str:
        return f"bubblewrap {self.version}".strip()

    @property
    def refusals(self) -> tuple[str, ...]:
        return ("Read-only file system",)

    @property
    def dies_with_parent(self) -> bool:
        return True  # --die-with-parent, and the PID namespace ends with its first process

    def command(
        self, argv: Sequence[str], policy: SandboxPolicy, unset: Sequence[str] = ()
    ) -> list[str]:
        args = [self.executable, "--new-session", "--die-with-parent", "--cap-drop", "ALL"]
        args += ["--ro-bind", "/", "/", "--dev", "/dev", "--bind", str(policy.temp), "/tmp"]
        for path in policy.visible:  # again, in case the private /tmp covered them
            args += ["--ro-bind", str(path), str(path)]
        for path in policy.writable:
            args += ["--bind", str(path), str(path)]
        for path in policy.read_only:
            args += ["--ro-bind", str(path), str(path)]
        for path in policy.uncreatable:
            args += ["--ro-bind", str(policy.empty), str(path)]  # bwrap creates it; see confinement
        for path in policy.hidden:
            if path.is_dir():
                args += ["--tmpfs", str(path)]
            else:
                args += ["--ro-bind", "/dev/null", str(path)]
        args += ["--unshare-pid", "--proc", "/proc"]
        for path in KERNEL_SETTINGS:  # root inside could otherwise change the host's kernel
            args += ["--ro-bind-try", path, path]
        if not policy.network:
            args.append("--unshare-net")
        args += ["--setenv", "TMPDIR", "/tmp"]
        for name in unset:
            args += ["--unsetenv", name]
        return [*args, "--", *argv]


def probe_command(executable: str, *, network: bool) -> list[str]:
    """The smallest sandbox with every namespace a real one uses, running ``true``."""
    args = [executable, "--new-session", "--die-with-parent", "--cap-drop", "ALL"]
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--unshare-pid", "--proc", "/proc"]
    if not network:
        args.append("--unshare-net")
    return [*args, "--", "/bin/true"]
