"""What one sandboxed process may touch, and the mechanisms that enforce it.

A policy is plain data: the folders it may write, the protected paths inside them that stay
read-only (and the missing ones it may not create), the paths it may not see at all, its
private temp folder, and whether it has a network. Everything else is readable and read-only.
A mechanism turns a policy into the command line that runs a program under it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from msgspec import Struct


class SandboxPolicy(Struct, frozen=True):
    visible: tuple[Path, ...]  # seen read-only even under the private /tmp: the workspace roots,
    # Heron's own Python, what a launched program needs from there
    writable: tuple[Path, ...]  # existing folders it may change; empty: nothing is writable
    read_only: tuple[Path, ...]  # protected paths inside them (existing): read-only
    uncreatable: tuple[Path, ...]  # protected paths inside them that do not exist yet
    hidden: tuple[Path, ...]  # existing paths it may not see (credential stores)
    temp: Path  # its private, writable /tmp
    empty: (
        Path  # an empty folder no sandboxed process can write: what a missing protected path shows
    )
    network: bool


class Mechanism(Protocol):
    """An operating system's sandbox (bubblewrap, Seatbelt)."""

    @property
    def name(self) -> str: ...

    @property
    def refusals(self) -> tuple[str, ...]:
        """What a refused file operation prints under it ("Read-only file system")."""
        ...

    @property
    def dies_with_parent(self) -> bool:
        """Whether everything it runs ends when the process that started it does."""
        ...

    def command(
        self, argv: Sequence[str], policy: SandboxPolicy, unset: Sequence[str] = ()
    ) -> list[str]:
        """``argv`` run under ``policy``, without the variables named in ``unset``."""
        ...
