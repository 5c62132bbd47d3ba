"""How Heron starts a language server: in the sandbox, or not at all.

A language server runs the workspace's code by design: basedpyright runs the project's
``.venv/bin/python`` to learn its interpreter, typescript-language-server loads the project's own
``node_modules/typescript``, gopls runs ``go list``, and whatever a server starts has its rights.
So each server runs in a sandbox of its own (``safety.sandbox``, the one commands run in): the
workspace roots read-only, credential stores and Heron's home hidden, a private ``/tmp`` the only
place it may write (its caches go there too), no network unless ``[diagnostics.servers.<name>]
network = true``, its ``PATH`` without the entries that name the workspace (``servers.finder``),
secret variables unset. It gets a sandbox of its own rather than the session's because it
outlives the session that started it (the sessions of a workspace share it); its private folder
goes when it stops.

Where no sandbox works, a server is left off and the user is told why, unless the user's own
config.toml says ``confined = false`` for it: then it runs as it did before Heron confined
servers (secret variables unset, tied to Heron's life).

What runs here costs a few milliseconds of file-system work (the policy, a private folder,
the sandbox's probe the first time): the pool calls it in a worker thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from agent_core.diagnostics.servers import LanguageServerSpec, safe_search_path
from agent_core.diagnostics.settings import LaunchSettings
from agent_core.safety.sandbox.settings import SandboxSettings

ENV = "/usr/bin/env"
# A confined server's caches (gopls's, Go's build cache, TypeScript's typings...) go to a folder
# of its own in its private temp folder, gone when it stops: the user's ~/.cache stays read-only
# to it, since what is cached there (pre-commit's hooks, build outputs) runs later unconfined.
PRIVATE_CACHE = ("/bin/sh", "-c", 'XDG_CACHE_HOME="${TMPDIR:-/tmp}/.cache" exec "$@"', "sh")


class ServerLaunch(NamedTuple):
    argv: list[str]  # as it is run
    done: Callable[[], None]  # the process is gone: tidy up after it
    confined: bool = False  # in the sandbox (else by the user's choice)
    remedy: str = ""  # added to the notice when it fails to start


def launcher_for(
    settings: LaunchSettings,
    roots: tuple[Path, ...],
    search_path: str,
    scrubbed: Sequence[str],
    log_file: Path,
) -> ServerLauncher:
    """How a session starts its language servers, as the settings say: the one way, for the
    sessions and for ``heron doctor``'s start check. ``search_path``: the ``PATH`` Heron has."""
    return ServerLauncher(
        roots,
        sandbox=settings.sandbox,
        unconfined=settings.diagnostics.unconfined,
        networked=settings.diagnostics.networked,
        search_path=safe_search_path(search_path, roots),
        home=Path.home(),
        heron_home=settings.home,
        scrubbed=scrubbed,
        log_file=log_file,
    )


class Refused(Exception):
    """This server may not run here; the message says why, and what the user can do."""


class ServerLauncher:
    """One session's way of starting language servers (the pool calls it per server)."""

    def __init__(
        self,
        roots: tuple[Path, ...],
        *,
        sandbox: SandboxSettings,
        unconfined: frozenset[str],
        networked: frozenset[str],
        search_path: str,
        home: Path,
        heron_home: Path,
        scrubbed: Sequence[str],
        log_file: Path,
    ) -> None:
        """``search_path``: the ``PATH`` servers see (``servers.safe_search_path``);
        ``scrubbed``: the secret variables they must not inherit; ``log_file``: their stderr."""
        self._roots, self._sandbox = roots, sandbox
        self._unconfined, self._networked = unconfined, networked
        self._search_path, self._home, self._heron_home = search_path, home, heron_home
        self._scrubbed, self._log_file = tuple(scrubbed), log_file
        self._config = heron_home / "config.toml"

    def __call__(self, spec: LanguageServerSpec) -> ServerLaunch:
        """``spec``'s command line as it runs; raises ``Refused``."""
        from agent_core.safety.sandbox.confinement import Confinement
        from agent_core.safety.sandbox.detect import detect

        program, label = spec.command[0], f"[diagnostics.servers.{spec.name}]"
        if not Path(program).is_absolute():
            raise Refused(
                f"{program} was not found (only PATH's absolute folders outside the workspace "
                f"are searched); give its absolute path as {label} command in {self._config}"
            )
        if not Path(program).exists():
            raise Refused(f"{program} does not exist (from {label} command in {self._config})")
        network = spec.name in self._networked
        settings = self._sandbox._replace(network="allow" if network else "deny")
        sandbox = Confinement(
            detect(network=network),
            settings,
            self._roots,
            home=self._home,
            heron_home=self._heron_home,
            scrubbed=self._scrubbed,
        )
        argv = [ENV, f"PATH={self._search_path}", *spec.command]
        if spec.name in self._unconfined:  # the user's choice, in their own config.toml
            return ServerLaunch(self._logged(sandbox.unconfined(argv).argv), sandbox.close)
        if not sandbox.active:
            sandbox.close()
            why = sandbox.availability.problem or "none is available"
            raise Refused(
                f"{spec.name} is left off: a language server runs code from the workspace, and "
                f"there is no sandbox to run it in ({why}). To run it unconfined anyway, set "
                f"{label} confined = false in {self._config}"
            )
        needs = _needed(spec.command)
        launch = sandbox.launch([*PRIVATE_CACHE, *argv], writable=False, needs=needs)

        def done() -> None:
            sandbox.release(launch)
            sandbox.close()

        remedy = (
            f" (in the sandbox: the workspace read-only{'' if network else ', no network'}; if "
            f"it cannot work there, set {label} confined = false in {self._config} to run it "
            "unconfined)"
        )
        return ServerLaunch(self._logged(launch.argv), done, True, remedy)

    def _logged(self, argv: Sequence[str]) -> list[str]:
        return logged(argv, self._log_file)


def logged(argv: Sequence[str], log_file: Path) -> list[str]:
    """``argv`` with its stderr appended to the log file: pygls pipes a server's stderr and
    never reads it, so a server that writes much there would block. The redirection is made
    outside the sandbox (or the container), which hides Heron's home and its logs."""
    return ["/bin/sh", "-c", 'exec "$@" 2>>"$0"', str(log_file), *argv]


def _needed(command: Sequence[str]) -> list[Path]:
    """The folders a server's command line names, seen read-only even under the private /tmp:
    its program's (and where that links to), and those of files named in its arguments (a
    configured ``["node", "/opt/lsp/server.js"]``)."""
    program = Path(command[0])
    files = [Path(a) for a in command[1:] if a.startswith("/") and Path(a).is_file()]
    folders = [program.parent, program.resolve().parent]
    folders += [f for file in files for f in (file.parent, file.resolve().parent)]
    return list(dict.fromkeys(folders))
