"""The one Settings object: environment variables over ``$HERON_HOME/config.toml`` over defaults.

This is the only module that reads the environment or config files. It is plain stdlib on
purpose: ``pydantic-settings`` costs ~120 ms to import, more than the whole budget for answering
``initialize``, and the handful of settings here need no more than ``tomllib``.

Each section of the file has its type and its reader beside the package that obeys it
(``codeexec/settings.py`` for ``[code_execution]``, ``models/settings.py`` for ``[retry]`` and
``[models]``, ...): a reader takes the parsed table, and the environment values it needs passed
in, and returns the section. This module reads the environment and the file and composes the
sections into ``Settings``; the packages below it never import it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from agent_core.checkpoints.settings import CheckpointSettings, read_checkpoints
from agent_core.codeexec.settings import CodeExecutionSettings, read_code_execution
from agent_core.config_values import choice as _choice
from agent_core.config_values import number as _number
from agent_core.config_values import string as _string
from agent_core.config_values import strings as _strings
from agent_core.config_values import table as _table
from agent_core.delegation.settings import DelegationSettings, read_delegation
from agent_core.diagnostics.settings import DiagnosticsSettings, read_diagnostics
from agent_core.errors import ConfigError
from agent_core.execution.settings import ExecutionSettings, read_execution
from agent_core.hooks.settings import HookSettings, read_hooks
from agent_core.mcp.servers import McpServerSpec
from agent_core.mcp.settings import McpTimeouts, read_servers, read_timeouts
from agent_core.memory.settings import MemorySettings, read_memory
from agent_core.models.settings import ModelSettings, RetrySettings, read_models, read_retry
from agent_core.modes import MODES
from agent_core.providers import ProviderSettings, read_providers, unconfigured
from agent_core.safety.sandbox.settings import SandboxSettings, read_sandbox
from agent_core.skills.settings import SkillSettings, read_skills
from agent_core.tool_switches import ToolSwitches, read_tools
from agent_core.web.settings import WebSettings, read_web

if TYPE_CHECKING:
    from agent_core.safety.secrets import Scrubbed


class Settings(NamedTuple):
    home: Path
    model: str | None = None  # "<provider>:<model>"
    default_mode: str = "ask"
    trace: bool = False
    log_level: str = "INFO"
    providers: Mapping[str, ProviderSettings] = MappingProxyType({})
    fallback_models: tuple[str, ...] = ()
    retry: RetrySettings = RetrySettings()
    models: Mapping[str, ModelSettings] = MappingProxyType({})
    reasoning_effort: str | None = None  # "low" | "medium" | "high"; None leaves it to the model
    keep_environment: frozenset[str] = frozenset()  # secret-looking variables commands may see
    max_turn_requests: int = 90  # model calls in one turn before it ends with max_turn_requests
    compact_at: float = 0.5  # share of the model's window that triggers a compaction
    shell: str = "/bin/sh"  # the user's shell, named in the system prompt
    mcp_servers: tuple[McpServerSpec, ...] = ()  # [mcp_servers.<name>]: in every session
    mcp_connect_timeout: float = McpTimeouts().connect  # [mcp] connect_timeout: seconds to start
    mcp_call_timeout: float = McpTimeouts().call  # [mcp] call_timeout: seconds for one tool call
    code_execution: CodeExecutionSettings = CodeExecutionSettings()
    sandbox: SandboxSettings = SandboxSettings()
    checkpoints: CheckpointSettings = CheckpointSettings()
    delegation: DelegationSettings = DelegationSettings()
    diagnostics: DiagnosticsSettings = DiagnosticsSettings()
    memory: MemorySettings = MemorySettings()
    execution: ExecutionSettings = ExecutionSettings()  # where commands run, per workspace
    # The user's own instructions, before the project's: $HERON_HOME/AGENTS.md, and with
    # [instructions] other_agents = true, ~/.claude/CLAUDE.md and ~/.codex/AGENTS.md.
    user_instructions: tuple[Path, ...] = ()
    skills: SkillSettings = SkillSettings()
    web: WebSettings = WebSettings()
    hooks: HookSettings = HookSettings()  # [[hooks.<event>]]: only ever from this file
    tools: ToolSwitches = ToolSwitches()  # [tools]: switched off, everywhere or in a mode
    # [workspace] watch: follow commands, skills, instructions and this file as they change
    # (false: they are checked at each prompt instead)
    watch: bool = True
    # The variables whose provider keys are ignored since an ACP `logout` (`ConfigWatch`):
    # set in the environment, read as if unset until the user logs in again.
    ignored_keys: tuple[str, ...] = ()

    @property
    def config_file(self) -> Path:
        return self.home / "config.toml"

    @property
    def log_dir(self) -> Path:
        return self.home / "logs"

    @property
    def sessions_db(self) -> Path:
        return self.home / "sessions.db"

    @property
    def permissions_file(self) -> Path:
        return self.home / "permissions.json"

    def provider(self, name: str) -> ProviderSettings:
        """The provider a model spec's ``<name>:`` reaches (``agent_core.providers``)."""
        return self.providers.get(name) or unconfigured(name)

    def has_credentials(self) -> bool:
        """A model is chosen and can be reached: a scripted model, a cloud platform or a local
        server needs no key, a Chat Completions server only its URL, every other its key."""
        if self.model is None:
            return False
        return self.provider(self.model.partition(":")[0]).reachable()

    def credentials(self, spec: str) -> tuple[ProviderSettings, ...]:
        """The keys and endpoints a model chain (``spec`` and the fallbacks) is built with: a
        session's model is built again when they change."""
        names = (spec, *self.fallback_models)
        return tuple(self.provider(name.partition(":")[0]) for name in names)


def load_settings(
    environ: Mapping[str, str] | None = None, *, model: str | None = None, read_file: bool = True
) -> Settings:
    """Read the environment (``os.environ`` unless given) and ``config.toml`` under the home.

    ``model`` (from the command line) wins over ``HERON_MODEL`` and the file. Raises
    ``ConfigError``; ``read_file=False`` gives the settings without the file.
    """
    env = os.environ if environ is None else environ
    home = heron_home(env)
    file = _read_config_file(home / "config.toml") if read_file else {}
    mode = env.get("HERON_MODE") or _string(file, "default_mode") or "ask"
    if mode not in MODES:
        raise ConfigError(f"unknown mode {mode!r}: use one of {', '.join(MODES)}")
    models = _table(file, "models", "[models]")
    mcp = _table(file, "mcp", "[mcp]")
    return Settings(
        home=home,
        model=model or env.get("HERON_MODEL") or _string(file, "model"),
        default_mode=mode,
        trace=env.get("HERON_TRACE", "") not in ("", "0", "false", "no"),
        log_level=(env.get("HERON_LOG_LEVEL") or _string(file, "log_level") or "INFO").upper(),
        providers=read_providers(env, file),
        fallback_models=tuple(_strings(file, "fallback_models")),
        retry=read_retry(_table(file, "retry", "[retry]")),
        models=read_models(models),
        reasoning_effort=_choice(file, "reasoning_effort", ("low", "medium", "high")),
        max_turn_requests=int(_number(file, "max_turn_requests", 90, minimum=1)),
        shell=env.get("SHELL") or "/bin/sh",
        compact_at=min(_number(file, "compact_at", 0.5, minimum=0.05), 0.95),
        keep_environment=frozenset(
            _strings(_table(file, "terminal", "[terminal]"), "keep_environment")
        ),
        mcp_servers=read_servers(_table(file, "mcp_servers", "[mcp_servers]")),
        mcp_connect_timeout=(timeouts := read_timeouts(mcp)).connect,
        mcp_call_timeout=timeouts.call,
        code_execution=read_code_execution(_table(file, "code_execution", "[code_execution]")),
        sandbox=(sandbox := read_sandbox(_table(file, "sandbox", "[sandbox]"))),
        checkpoints=read_checkpoints(_table(file, "checkpoints", "[checkpoints]")),
        delegation=read_delegation(_table(file, "delegation", "[delegation]")),
        diagnostics=read_diagnostics(_table(file, "diagnostics", "[diagnostics]")),
        memory=read_memory(_table(file, "memory", "[memory]")),
        execution=read_execution(_table(file, "execution", "[execution]"), sandbox.network),
        user_instructions=_user_instructions(home, _table(file, "instructions", "[instructions]")),
        skills=read_skills(_table(file, "skills", "[skills]")),
        web=read_web(_table(file, "web", "[web]"), env),
        hooks=read_hooks(file.get("hooks", {})),  # a bad hook is left out, not the file
        tools=read_tools(_table(file, "tools", "[tools]")),
        watch=_watch(_table(file, "workspace", "[workspace]")),
    )


class ConfigWatch:
    """The settings of a running server, read again when ``config.toml`` has changed.

    ``heron login``, ``logout`` and the user's own edits change the file while ``heron acp``
    runs. ``refresh()`` costs one ``stat`` when nothing changed; the file is parsed again only
    when its modification time, size or inode differ (``heron login`` replaces it, so the
    inode changes even within one clock tick). A file that stops being valid gives the
    settings without it, and ``problem`` says why, as at start-up. The environment is read
    again too, but it does not change while Heron runs.

    Logged in or out: the environment cannot be changed from inside, so ``log_out()`` makes
    this process read it as if the variables holding a provider's key were unset (the built-in
    ones, ``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``, ..., a preset's, a named provider's
    ``api_key_env``; whichever the settings read, worked out again at each reading, so a
    provider added to the file while logged out is covered too). The settings then name them
    in ``ignored_keys``. It lasts until the user logs in again, which is either

    - ``log_in()`` (ACP ``authenticate``), or
    - a reading of ``config.toml``, changed since ``log_out()``, that holds a provider's key
      (``api_key`` under a ``[providers.<name>]``): what ``heron login`` saves, or the user
      wrote by hand. An edit without a key (another model, a comment) leaves it logged out.

    Logging in again brings every environment key back, not only the provider logged in to.
    The keys already in the file when ``log_out()`` is called are the caller's to remove
    (``config_keys.remove_api_keys``); a restart of the process forgets the state.
    """

    def __init__(self, *, model: str | None = None) -> None:
        self._model = model  # from the command line: it wins over the environment and the file
        self._file = heron_home() / "config.toml"
        self._logged_out = False
        self._seen = _stamp(self._file)  # before reading: a change meanwhile is read next time
        self.settings, self.problem = self._load()

    @property
    def logged_out(self) -> bool:
        """Whether the environment's provider keys are ignored (``log_out()``)."""
        return self._logged_out

    def refresh(self) -> bool:
        """Read the settings again if the file changed; whether it did. Logged out, a provider
        key in the changed file logs in again."""
        stamp = _stamp(self._file)
        if stamp == self._seen:
            return False
        self._seen = stamp
        self.settings, self.problem = self._load(key_in_file_logs_in=True)
        return True

    def log_out(self) -> tuple[str, ...]:
        """Ignore the environment's provider keys from now on; the variables that hold one
        (ignored until ``log_in()`` or a key saved in the file; a restart brings them back)."""
        self._logged_out = True
        self._seen = _stamp(self._file)
        self.settings, self.problem = self._load()
        return self.settings.ignored_keys

    def log_in(self) -> None:
        """Use the environment's provider keys again (after ``log_out()``)."""
        if self._logged_out:
            self._logged_out = False
            self._seen = _stamp(self._file)
            self.settings, self.problem = self._load()

    def _load(self, *, key_in_file_logs_in: bool = False) -> tuple[Settings, str | None]:
        settings, problem = self._read(os.environ)
        if not self._logged_out:
            return settings, problem
        hidden = _provider_key_variables(settings, os.environ)
        masked, problem = self._read({k: v for k, v in os.environ.items() if k not in hidden})
        # Masked, a provider that still has a key has it from the file: saved since log_out().
        if key_in_file_logs_in and any(p.api_key for p in masked.providers.values()):
            self._logged_out = False
            return settings, problem
        return masked._replace(ignored_keys=tuple(sorted(hidden))), problem

    def _read(self, environ: Mapping[str, str]) -> tuple[Settings, str | None]:
        try:
            return load_settings(environ, model=self._model), None
        except ConfigError as exc:  # serve without the file; sessions report it
            return load_settings(environ, model=self._model, read_file=False), str(exc)


def _provider_key_variables(settings: Settings, environ: Mapping[str, str]) -> set[str]:
    """The variables set in ``environ`` that the settings take a provider's key from."""
    named = {p.key_variable for p in settings.providers.values() if p.key_variable}
    return {name for name in named if environ.get(name)}


def heron_home(environ: Mapping[str, str] | None = None) -> Path:
    """Where Heron keeps its settings and sessions: ``HERON_HOME``, else ``~/.heron``."""
    env = os.environ if environ is None else environ
    return Path(env.get("HERON_HOME") or Path.home() / ".heron").expanduser()


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size, status.st_ino


def _read_config_file(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    import tomllib  # only when there is a file: keeps start-up lean

    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from exc
    except RecursionError:
        raise ConfigError(f"{path} nests arrays or tables too deeply to read") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from exc


def _watch(table: dict[str, Any]) -> bool:
    watch = table.get("watch", True)
    if not isinstance(watch, bool):
        raise ConfigError("config.toml: [workspace] watch must be true or false")
    return watch


def _user_instructions(home: Path, table: dict[str, Any]) -> tuple[Path, ...]:
    others = table.get("other_agents", False)
    if not isinstance(others, bool):
        raise ConfigError("config.toml: [instructions] other_agents must be true or false")
    mine = home / "AGENTS.md"
    if not others:
        return (mine,)
    user = Path.home()
    return (mine, user / ".claude" / "CLAUDE.md", user / ".codex" / "AGENTS.md")


def scrubbed_environment(keep: frozenset[str] = frozenset()) -> Scrubbed:
    """Our environment split into what children see and the secrets they do not."""
    from agent_core.safety.secrets import scrub

    return scrub(os.environ, keep)


def secrets_to_redact(settings: Settings) -> dict[str, str]:
    """What must never be written to the session store or the logs: the provider keys, and
    every value scrubbed from the children's environment. Name -> value."""
    secrets = dict(scrubbed_environment(settings.keep_environment).removed)
    for name, provider in settings.providers.items():
        if provider.api_key:
            secrets.setdefault(
                provider.key_variable or f"[providers.{name}] api_key", provider.api_key
            )
    for name in settings.ignored_keys:  # unused since a logout, still secret
        if value := os.environ.get(name):
            secrets.setdefault(name, value)
    if key := settings.web.search.api_key:
        secrets.setdefault("WEB_SEARCH_API_KEY", key)
    return secrets


def user_config_home() -> Path:
    """Where editors keep their settings on Linux (and Zed on macOS): ``$XDG_CONFIG_HOME``."""
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
