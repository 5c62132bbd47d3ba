"""``heron doctor``'s look at the language servers: whether each one starts where a session
would run it (in the sandbox, or outside it by the user's choice), tried as a session starts
it, in an empty scratch workspace, all at once."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import anyio

from agent_core.diagnostics.launching import Refused, ServerLauncher
from agent_core.diagnostics.servers import LanguageServerSpec

START_LIMIT_S = 30.0  # a cold start on a busy machine


class ServerCheck(NamedTuple):
    spec: LanguageServerSpec
    ok: bool
    said: str  # "starts in the sandbox (1.2 s)", or what went wrong and what to do


async def check_servers(
    specs: Sequence[LanguageServerSpec], launcher: Callable[[tuple[Path, ...]], ServerLauncher]
) -> list[ServerCheck]:
    """Each server of ``specs`` started, initialized and stopped, launched by ``launcher``
    (the roots -> a session's ``ServerLauncher``) around a scratch workspace."""
    with tempfile.TemporaryDirectory(prefix="heron-doctor-") as scratch:
        root = Path(scratch)
        launch = launcher((root,))
        found: dict[str, ServerCheck] = {}

        async def check(spec: LanguageServerSpec) -> None:
            found[spec.name] = await _check(spec, launch, root)

        async with anyio.create_task_group() as group:
            for spec in specs:
                group.start_soon(check, spec)
    return [found[spec.name] for spec in specs]


async def _check(spec: LanguageServerSpec, launch: ServerLauncher, root: Path) -> ServerCheck:
    from agent_core.diagnostics.lsp import LanguageServer, ServerFailed

    try:
        launched = await anyio.to_thread.run_sync(launch, spec)
    except Refused as exc:
        return ServerCheck(spec, False, str(exc))
    server = LanguageServer(spec.name, launched.argv, root, launched.done)
    started = time.monotonic()
    try:
        await server.start(START_LIMIT_S)
    except ServerFailed as exc:
        return ServerCheck(spec, False, f"{exc}{launched.remedy}")
    took = time.monotonic() - started
    await server.stop()
    if launched.confined:
        return ServerCheck(spec, True, f"starts in the sandbox ({took:.1f} s)")
    return ServerCheck(spec, True, f"starts unconfined, as config.toml says ({took:.1f} s)")
