"""``heron doctor``: what is set up, what is missing, and what to do about it."""

from __future__ import annotations

import functools
import os
import subprocess
from pathlib import Path
from typing import Any, TextIO

from acp_server import __version__
from acp_server.install import jsonc
from acp_server.install.editors import Editor, editors, installed_heron
from agent_core.config import Settings, load_settings
from agent_core.errors import ConfigError
from agent_core.sessions import disk

OK, PROBLEM, NOTE = "ok", "!!", "--"


def run_doctor(out: TextIO) -> int:
    problems = 0

    def say(mark: str, text: str) -> None:
        nonlocal problems
        problems += mark == PROBLEM
        out.write(f"[{mark}] {text}\n")

    heron = installed_heron()
    say(OK if heron else PROBLEM, f"heron {__version__} at {heron or 'nowhere on PATH'}")
    try:
        settings = load_settings()
    except ConfigError as exc:
        say(PROBLEM, f"config: {exc}")
        settings = load_settings(read_file=False)
    else:
        say(
            OK,
            f"config: {settings.config_file}"
            + ("" if settings.config_file.exists() else " (none yet; defaults apply)"),
        )
    _model(settings, say)
    _providers(settings, say)
    _certificates(say)
    _storage(settings, say)
    _sandbox(settings, say)
    _execution(settings, say)
    servers = ", ".join(s.name for s in settings.mcp_servers) or "none"
    say(NOTE, f"MCP servers from config.toml: {servers}")
    _hooks(settings, say)
    _watching(settings, say)
    _language_servers(settings, say)
    for editor in editors().values():
        _editor(editor, say)
    out.write("All set.\n" if not problems else f"{problems} problem(s) found.\n")
    return 1 if problems else 0


def _model(settings: Settings, say: Any) -> None:
    if settings.model is None:
        say(PROBLEM, "model: none; run `heron login`, or set HERON_MODEL=<provider>:<model>")
        return
    provider = settings.model.partition(":")[0]
    if settings.has_credentials():
        how = "key set" if settings.provider(provider).api_key else "no key needed"
        say(OK, f"model: {settings.model} ({how})")
    else:
        say(PROBLEM, f"model: {settings.model}, but no {provider} key; run `heron login`")


def _providers(settings: Settings, say: Any) -> None:
    """Each configured model (the model and its fallbacks) asked of its provider, all at once:
    reachable, key accepted, model there; a problem says how to fix it."""
    import anyio

    from agent_core.models.checks import check_all, configured

    specs = configured(settings) if settings.has_credentials() else []
    for checked in anyio.run(check_all, settings, specs) if specs else ():
        say(OK if checked.ok else PROBLEM, f"{checked.spec}: {checked.said}")


def _certificates(say: Any) -> None:
    """Where HTTPS connections to the providers take their trusted certificates from."""
    from agent_core.errors import ModelConfigError
    from agent_core.models import tls

    try:
        say(OK, f"TLS certificates: {tls.source()}")
    except ModelConfigError as exc:
        say(PROBLEM, f"TLS certificates: {exc}")


def _hooks(settings: Settings, say: Any) -> None:
    """One line per hook config.toml adds, and one per hook table left out."""
    hooks = settings.hooks
    if not hooks.hooks and not hooks.problems:
        say(NOTE, "hooks from config.toml: none")
    for hook in hooks.hooks:
        tools = f" (tools: {', '.join(hook.tools)})" if hook.tools else ""
        say(NOTE, f"hook {hook.event}: {hook.name}{tools}, timeout {hook.timeout:g} s")
    for problem in hooks.problems:
        say(PROBLEM, f"hooks: {problem}; this hook is left out")


def _storage(settings: Settings, say: Any) -> None:
    """Where Heron keeps its state: a folder it can write, a history it can read, and what
    was moved aside from it."""
    home = settings.home
    problem = _unwritable(home)
    if problem:
        say(PROBLEM, f"home: cannot write {home} ({problem}); sessions and logs are not saved")
        if not settings.sessions_db.exists():
            return
    usable, said = disk.diagnose(settings.sessions_db)
    say(OK if usable else PROBLEM, f"history: {said}")
    for aside in disk.moved_aside(settings.sessions_db):
        say(
            NOTE,
            f"history: {aside} was moved aside, unreadable; delete it when you no longer need it",
        )


def _unwritable(home: Path) -> str | None:
    """Why nothing can be written in ``home`` (made when missing, as Heron would), or None."""
    import tempfile

    try:
        home.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=home, prefix=".doctor.") as probe:
            probe.write(b"\0" * 4096)
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as exc:
        return disk.reason(exc, home)
    return None


def _sandbox(settings: Settings, say: Any) -> None:
    from agent_core.safety.sandbox.detect import detect

    sandbox = settings.sandbox
    found = detect(network=sandbox.network == "allow")
    then = "commands ask first" if sandbox.required else "commands run unconfined"
    if not sandbox.enabled:
        say(NOTE, f"sandbox: turned off ([sandbox] enabled = false), so {then}")
    elif found.mechanism is not None:
        say(OK, f"sandbox: {found.mechanism.name}, network {sandbox.network}")
    else:
        remedy = f"; to get one, {found.remedy}" if found.remedy else ""
        mark = PROBLEM if sandbox.required else NOTE
        say(mark, f"sandbox: none ({found.problem}), so {then}{remedy}")


def _watching(settings: Settings, say: Any) -> None:
    """Whether commands, skills, instructions and config.toml are followed as they change, in
    the current folder and the home: the watch is laid and taken down, as a session lays it."""
    if not settings.watch:
        say(NOTE, "file watching: off ([workspace] watch = false); changes are seen at each prompt")
        return
    import anyio

    from agent_core.watching.targets import home_targets, watch_points, workspace_targets
    from agent_core.watching.watcher import probe

    skills, home = settings.skills, settings.home
    targets = (
        workspace_targets(Path.cwd(), skills, home),
        home_targets(home, skills, settings.user_instructions, memory=settings.memory.enabled),
    )
    for target in targets:
        if (problem := anyio.run(probe, watch_points(target))) is not None:
            say(NOTE, f"file watching: unavailable ({problem}); changes are seen at each prompt")
            return
    say(OK, "file watching: on (commands, skills, instructions, config.toml)")


def _execution(settings: Settings, say: Any) -> None:
    """Where commands run in the current folder: the backend, and for the container backend
    the engine, the image and the workspace's container (nothing is started)."""
    from acp_server.install import backends
    from agent_core.config import scrubbed_environment

    cwd = Path.cwd()
    environment = scrubbed_environment(settings.keep_environment).kept
    execution = settings.execution
    chosen = execution.for_workspace(cwd)
    folder = next((f for f, table in execution.workspaces.items() if table is chosen), None)
    source = f'[execution.workspaces."{folder}"]' if folder else "[execution]"
    backends.report(chosen, cwd, settings.home, environment, say, source=source)


def _language_servers(settings: Settings, say: Any) -> None:
    """Which language servers would report diagnostics after edits, by file type, and whether
    each starts where a session would run it: in the sandbox (they run the workspace's code),
    or outside it where config.toml says ``confined = false``; without a sandbox, not at all."""
    import anyio

    from agent_core.config import scrubbed_environment
    from agent_core.diagnostics.checks import check_servers
    from agent_core.diagnostics.servers import DEFAULTS, available, finder

    diagnostics = settings.diagnostics
    if not diagnostics.enabled:
        say(NOTE, "diagnostics: turned off ([diagnostics] enabled = false)")
        return
    if settings.execution.for_workspace(Path.cwd()).backend == "container":
        _container_servers(diagnostics.servers, say)
        return
    environment = scrubbed_environment(settings.keep_environment)
    search_path = environment.kept.get("PATH", "")
    found = available(diagnostics.servers, finder(search_path, ()))
    runnable = [s for s in found if Path(s.command[0]).is_absolute()]
    checks = anyio.run(check_servers, runnable, _launcher(settings, search_path))
    checked = {check.spec.name: check for check in checks}
    for spec in found:
        kinds = " ".join(sorted(spec.extensions))
        check = checked.get(spec.name)
        if check is None:
            say(PROBLEM, f"diagnostics for {kinds}: {spec.name} ({spec.command[0]} not found)")
            continue
        mark = OK if check.ok else PROBLEM
        say(mark, f"diagnostics for {kinds}: {spec.name} ({spec.command[0]}): {check.said}")
        if check.ok and spec.name in diagnostics.unconfined:
            say(NOTE, f"{spec.name} runs unconfined: it can run the workspace's code as you")
    covered = {extension for spec in found for extension in spec.extensions}
    for candidates in DEFAULTS:
        if not candidates[0].extensions & covered:
            names = " or ".join(c.command[0] for c in candidates)
            kinds = " ".join(sorted(candidates[0].extensions))
            say(NOTE, f"diagnostics for {kinds}: none; install {names} to have them")


def _container_servers(configured: Any, say: Any) -> None:
    """A container workspace's servers: looked up and run in its container (not started here)."""
    from agent_core.diagnostics.servers import DEFAULTS

    where = "runs in the workspace's container (looked up there on the first edit)"
    covered: set[str] = set()
    for spec in configured:
        kinds = " ".join(sorted(spec.extensions))
        say(NOTE, f"diagnostics for {kinds}: {spec.name} ({spec.command[0]}) {where}")
        covered |= spec.extensions
    for candidates in DEFAULTS:
        if not candidates[0].extensions & covered:
            names = " or ".join(c.command[0] for c in candidates)
            kinds = " ".join(sorted(candidates[0].extensions))
            say(NOTE, f"diagnostics for {kinds}: {names} (the first found) {where}")


def _launcher(settings: Settings, search_path: str) -> Any:
    """How a session would launch servers, for a scratch workspace's roots."""
    from agent_core.config import scrubbed_environment
    from agent_core.diagnostics.launching import ServerLauncher, launcher_for

    log_dir = settings.log_dir
    log_file = log_dir / "language-servers.log" if log_dir.is_dir() else Path(os.devnull)
    removed = tuple(scrubbed_environment(settings.keep_environment).removed)

    def launcher(roots: tuple[Path, ...]) -> ServerLauncher:
        return launcher_for(settings, roots, search_path, removed, log_file)

    return launcher


def _editor(editor: Editor, say: Any) -> None:
    file = editor.settings
    if not file.exists():
        say(NOTE, f"{editor.title}: not set up (`heron setup {editor.name}` writes {file})")
        return
    try:
        value: Any = jsonc.loads(file.read_text(encoding="utf-8"))
    except (OSError, jsonc.JsoncError) as exc:
        say(PROBLEM, f"{editor.title}: cannot read {file}: {exc}")
        return
    value = jsonc.member(value, editor.key)
    command = editor.command_of(value) if value is not None else None
    if command is None:
        say(NOTE, f"{editor.title}: no Heron entry in {file} (`heron setup {editor.name}`)")
        return
    problem = _broken(command)
    if problem:
        say(
            PROBLEM,
            f"{editor.title}: {file} starts {command}, which {problem}; "
            f"run `heron setup {editor.name}`",
        )
    else:
        say(OK, f"{editor.title}: {file} starts {command}")


@functools.cache  # editors set up by `heron setup` share one binary: check it once
def _broken(command: str) -> str | None:
    """Why ``command`` is not a working `heron`, or None."""
    if not Path(command).is_absolute():
        return "is not an absolute path (editors do not search your shell's PATH)"
    try:
        done = subprocess.run(
            [command, "--version"], capture_output=True, text=True, timeout=20, check=False
        )
    except OSError as exc:
        return f"cannot run ({exc.strerror})"
    except subprocess.TimeoutExpired:
        return "did not answer --version within 20 s"
    if done.returncode != 0 or not done.stdout.startswith("heron"):
        return f"is not a working heron (exit {done.returncode})"
    return None
