"""Heron's own process, kept out of reach of the processes it starts.

A command that runs outside the sandbox (there is none, or the user allowed it) is still the
same user as Heron, and could read Heron's environment, provider keys included, from
``/proc/<pid>/environ``. ``protect_own_memory`` marks the process not dumpable: the kernel
then lets no other process of the user read its memory, environment or file descriptors, or
attach a debugger. The cost: no core dumps, and debugging Heron needs root.
"""

from __future__ import annotations

import functools
import sys

PR_SET_DUMPABLE = 4
PR_GET_DUMPABLE = 3


@functools.cache  # once per process: it stays protected
def protect_own_memory() -> bool:
    """Whether this process is now protected (Linux only). Called before Heron starts any
    process of its own (``Confinement.launch``), not at start-up, which it would slow."""
    if sys.platform != "linux":
        return False
    import ctypes  # here: a few milliseconds nobody else pays

    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0 and not dumpable()


def dumpable() -> bool:
    if sys.platform != "linux":
        return True
    import ctypes

    return int(ctypes.CDLL(None).prctl(PR_GET_DUMPABLE, 0, 0, 0, 0)) != 0
