"""The one Settings object: environment variables over ``$HERON_HOME/config.toml`` over defaults.

This is the only module that reads the environment or config files. It is plain stdlib on
purpose: ``pydantic-settings`` costs ~120 ms to import, more than the whole budget for answering
``initialize``, and the handful of settings here need no more than ``tomllib``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from agent_core.config_values import choice as _choice
from agent_core.config_values import int_or_none as _int_or_none
from agent_core.config_values import number as _number
from agent_core.config_values import string as _string
from agent_core.config_values import string_table as _string_table
from agent_core.config_values import strings as _strings
from agent_core.config_values import table as _table
from agent_core.diagnostics.servers import LanguageServerSpec
from agent_core.errors import ConfigError
from agent_core.mcp.servers import HttpServer, McpServerSpec, StdioServer
from agent_core.providers import ProviderSettings, read_providers, unconfigured
from agent_core.safety.sandbox.settings import SandboxSettings
from agent_core.skills.settings import SHARED, SkillSettings
from agent_core.web.settings import KEY_VARIABLES, SEARCH_BACKENDS, SearchSettings, WebSettings

if TYPE_CHECKING:
    from agent_core.safety.secrets import Scrubbed

PROVIDER_ENV = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "openai-chat": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
}
MODES = ("ask", "accept-edits", "plan", "full-access")


class ModelSettings(NamedTuple):
    """``[models."<provider>:<model>"]``: what to assume about one model."""

    context_window: int | None = None
    max_output_tokens: int | None = None
    images: bool | None = None
    input_price: float | None = None  # USD per million tokens
    output_price: float | None = None
    cache_read_price: float | None = None
    cache_write_price: float | None = None

    def fields(self) -> dict[str, Any]:
        return self._asdict()


class RetrySettings(NamedTuple):
    """``[retry]``: how transient provider faults are retried before falling back."""

    max_attempts: int = 4
    base_delay: float = 1.0
    max_delay: float = 30.0


class CodeExecutionSettings(NamedTuple):
    """``[code_execution]``: how ``execute_code`` runs scripts."""

    mode: str = "project"  # project: the workspace and its Python; strict: a temp dir, Heron's
    timeout: float = 300.0
    grace: float = 5.0
    max_output: int = 50_000
    max_stderr: int = 10_000
    max_tool_calls: int = 50


class MemorySettings(NamedTuple):
    """``[memory]``: the notes the agent keeps across sessions (``agent_core.memory``)."""

    enabled: bool = True
    notes_chars: int = 4000  # notes.md: what it learned about its work
    user_chars: int = 2000  # user.md: what it learned about the user


class DiagnosticsSettings(NamedTuple):
    """``[diagnostics]``: what edited files' language servers say, added to the edit's result."""

    enabled: bool = True
    warnings: bool = False  # new warnings too, not only new errors
    wait: float = 1.5  # seconds an edit's result waits for diagnostics from a running server
    first_wait: float = 8.0  # the same, when the server must start first
    max_shown: int = 20  # diagnostics listed per file
    servers: tuple[LanguageServerSpec, ...] = ()  # [diagnostics.servers.<name>]
    # Servers run in the sandbox (workspace read-only, no network); these names, from the user's
    # own config.toml, run outside it (confined = false) or keep the network (network = true).
    unconfined: frozenset[str] = frozenset()
    networked: frozenset[str] = frozenset()


class DelegationSettings(NamedTuple):
    """``[delegation]``: the subagents the ``delegate`` tool starts."""

    max_requests: int = 50  # model requests in one subagent's task
    max_parallel: int = 3  # read-only subagents running at once (writing ones run alone)
    max_depth: int = 1  # 1: subagents do not delegate further


class CheckpointSettings(NamedTuple):
    """``[checkpoints]``: the workspace snapshots taken before a turn's first change."""

    enabled: bool = True
    max_file_size: int = 10 * 1024 * 1024  # bytes; a larger file is not kept (a notice says so)
    max_files: int = 50_000  # more files than this: the rest are not kept (a notice says so)
    keep_days: float = 30.0  # older checkpoints are pruned
    max_total_mb: float = 2048.0  # the shadow repository's size beyond which the oldest go


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
    mcp_connect_timeout: float = 10.0  # [mcp] connect_timeout: seconds to start a server
    mcp_call_timeout: float = 300.0  # [mcp] call_timeout: seconds for one tool call
    code_execution: CodeExecutionSettings = CodeExecutionSettings()
    sandbox: SandboxSettings = SandboxSettings()
    checkpoints: CheckpointSettings = CheckpointSettings()
    delegation: DelegationSettings = DelegationSettings()
    diagnostics: DiagnosticsSettings = DiagnosticsSettings()
    memory: MemorySettings = MemorySettings()
    # The user's own instructions, before the project's: $HERON_HOME/AGENTS.md, and with
    # [instructions] other_agents = true, ~/.claude/CLAUDE.md and ~/.codex/AGENTS.md.
    user_instructions: tuple[Path, ...] = ()
    skills: SkillSettings = SkillSettings()
    web: WebSettings = WebSettings()

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
        retry=_retry(_table(file, "retry", "[retry]")),
        models={name: _model(_table(models, name, f'[models."{name}"]'), name) for name in models},
        reasoning_effort=_choice(file, "reasoning_effort", ("low", "medium", "high")),
        max_turn_requests=int(_number(file, "max_turn_requests", 90, minimum=1)),
        shell=env.get("SHELL") or "/bin/sh",
        compact_at=min(_number(file, "compact_at", 0.5, minimum=0.05), 0.95),
        keep_environment=frozenset(
            _strings(_table(file, "terminal", "[terminal]"), "keep_environment")
        ),
        mcp_servers=_mcp_servers(_table(file, "mcp_servers", "[mcp_servers]")),
        mcp_connect_timeout=_number(mcp, "connect_timeout", 10.0, minimum=0.1),
        mcp_call_timeout=_number(mcp, "call_timeout", 300.0, minimum=0.1),
        code_execution=_code_execution(_table(file, "code_execution", "[code_execution]")),
        sandbox=_sandbox(_table(file, "sandbox", "[sandbox]")),
        checkpoints=_checkpoints(_table(file, "checkpoints", "[checkpoints]")),
        delegation=_delegation(_table(file, "delegation", "[delegation]")),
        diagnostics=_diagnostics(_table(file, "diagnostics", "[diagnostics]")),
        memory=_memory(_table(file, "memory", "[memory]")),
        user_instructions=_user_instructions(home, _table(file, "instructions", "[instructions]")),
        skills=_skills(_table(file, "skills", "[skills]")),
        web=_web(_table(file, "web", "[web]"), env),
    )


class ConfigWatch:
    """The settings of a running server, read again when ``config.toml`` has changed.

    ``heron login``, ``logout`` and the user's own edits change the file while ``heron acp``
    runs. ``refresh()`` costs one ``stat`` when nothing changed; the file is parsed again only
    when its modification time, size or inode differ (``heron login`` replaces it, so the
    inode changes even within one clock tick). A file that stops being valid gives the
    settings without it, and ``problem`` says why, as at start-up. The environment is read
    again too, but it does not change while Heron runs.
    """

    def __init__(self, *, model: str | None = None) -> None:
        self._model = model  # from the command line: it wins over the environment and the file
        self._file = heron_home() / "config.toml"
        self._seen = _stamp(self._file)  # before reading: a change meanwhile is read next time
        self.settings, self.problem = self._load()

    def refresh(self) -> bool:
        """Read the settings again if the file changed; whether it did."""
        stamp = _stamp(self._file)
        if stamp == self._seen:
            return False
        self._seen = stamp
        self.settings, self.problem = self._load()
        return True

    def _load(self) -> tuple[Settings, str | None]:
        try:
            return load_settings(model=self._model), None
        except ConfigError as exc:  # serve without the file; sessions report it
            return load_settings(model=self._model, read_file=False), str(exc)


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


def _retry(table: dict[str, Any]) -> RetrySettings:
    defaults = RetrySettings()
    return RetrySettings(
        max_attempts=int(_number(table, "max_attempts", defaults.max_attempts, minimum=1)),
        base_delay=_number(table, "base_delay", defaults.base_delay, minimum=0),
        max_delay=_number(table, "max_delay", defaults.max_delay, minimum=0),
    )


def _model(table: dict[str, Any], name: str) -> ModelSettings:
    images = table.get("images")
    if images is not None and not isinstance(images, bool):
        raise ConfigError(f'config.toml: [models."{name}"] images must be true or false')
    numbers = {
        key: _number(table, key, None, minimum=0)
        for key in (
            "context_window",
            "max_output_tokens",
            "input_price",
            "output_price",
            "cache_read_price",
            "cache_write_price",
        )
    }
    return ModelSettings(
        context_window=_int_or_none(numbers["context_window"]),
        max_output_tokens=_int_or_none(numbers["max_output_tokens"]),
        images=images,
        input_price=numbers["input_price"],
        output_price=numbers["output_price"],
        cache_read_price=numbers["cache_read_price"],
        cache_write_price=numbers["cache_write_price"],
    )


def _code_execution(table: dict[str, Any]) -> CodeExecutionSettings:
    defaults = CodeExecutionSettings()
    return CodeExecutionSettings(
        mode=_choice(table, "mode", ("project", "strict")) or defaults.mode,
        timeout=_number(table, "timeout", defaults.timeout, minimum=0.1),
        grace=_number(table, "grace", defaults.grace, minimum=0),
        max_output=int(_number(table, "max_output", defaults.max_output, minimum=1)),
        max_stderr=int(_number(table, "max_stderr", defaults.max_stderr, minimum=0)),
        max_tool_calls=int(_number(table, "max_tool_calls", defaults.max_tool_calls, minimum=0)),
    )


def _memory(table: dict[str, Any]) -> MemorySettings:
    defaults = MemorySettings()
    enabled = table.get("enabled", defaults.enabled)
    if not isinstance(enabled, bool):
        raise ConfigError("config.toml: [memory] enabled must be true or false")
    return MemorySettings(
        enabled=enabled,
        notes_chars=int(_number(table, "notes_chars", defaults.notes_chars, minimum=100)),
        user_chars=int(_number(table, "user_chars", defaults.user_chars, minimum=100)),
    )


def _user_instructions(home: Path, table: dict[str, Any]) -> tuple[Path, ...]:
    others = table.get("other_agents", False)
    if not isinstance(others, bool):
        raise ConfigError("config.toml: [instructions] other_agents must be true or false")
    mine = home / "AGENTS.md"
    if not others:
        return (mine,)
    user = Path.home()
    return (mine, user / ".claude" / "CLAUDE.md", user / ".codex" / "AGENTS.md")


def _diagnostics(table: dict[str, Any]) -> DiagnosticsSettings:
    defaults = DiagnosticsSettings()
    flags = {key: table.get(key, getattr(defaults, key)) for key in ("enabled", "warnings")}
    if not all(isinstance(value, bool) for value in flags.values()):
        raise ConfigError("config.toml: [diagnostics] enabled and warnings must be true or false")
    servers: list[LanguageServerSpec] = []
    exceptions: dict[str, set[str]] = {"confined": set(), "network": set()}
    listed = _table(table, "servers", "[diagnostics.servers]")
    for name in listed:
        label = f"[diagnostics.servers.{name}]"
        section = _table(listed, name, label)
        for key, names in exceptions.items():  # confined = false; network = true
            value = section.get(key, key == "confined")
            if not isinstance(value, bool):
                raise ConfigError(f"config.toml: {label} {key} must be true or false")
            if value != (key == "confined"):
                names.add(name)
        command, extensions = _strings(section, "command"), _strings(section, "extensions")
        if not command and not extensions:
            continue  # only how a default server of this name runs
        if not command or not extensions:
            raise ConfigError(f"config.toml: {label} needs command and extensions")
        dotted = frozenset(e if e.startswith(".") else f".{e}" for e in extensions)
        servers.append(LanguageServerSpec(name, tuple(command), dotted))
    return DiagnosticsSettings(
        enabled=flags["enabled"],
        warnings=flags["warnings"],
        wait=_number(table, "wait", defaults.wait, minimum=0.05),
        first_wait=_number(table, "first_wait", defaults.first_wait, minimum=0.05),
        max_shown=int(_number(table, "max_shown", defaults.max_shown, minimum=1)),
        servers=tuple(servers),
        unconfined=frozenset(exceptions["confined"]),
        networked=frozenset(exceptions["network"]),
    )


def _web(table: dict[str, Any], env: Mapping[str, str]) -> WebSettings:
    """``[web]``: ``allow_private`` is true, false, or a list of hosts and networks; the search
    key comes from ``api_key``, else the variable ``api_key_env`` names (or the backend's own)."""
    defaults, private, hosts = WebSettings(), table.get("allow_private", False), ()
    if isinstance(private, list):
        private, hosts = False, tuple(_strings(table, "allow_private"))
    if not isinstance(private, bool):
        raise ConfigError("config.toml: [web] allow_private must be true, false or a list")
    search = _table(table, "search", "[web.search]")
    backend = _choice(search, "backend", SEARCH_BACKENDS)
    variable = _string(search, "api_key_env") or KEY_VARIABLES.get(backend or "")
    return WebSettings(
        allow_private=private,
        allowed_hosts=hosts,
        max_bytes=int(_number(table, "max_bytes", defaults.max_bytes, minimum=1000)),
        max_chars=int(_number(table, "max_chars", defaults.max_chars, minimum=1000)),
        timeout=_number(table, "timeout", defaults.timeout, minimum=0.1),
        max_redirects=int(_number(table, "max_redirects", defaults.max_redirects, minimum=0)),
        search=SearchSettings(
            backend,
            _string(search, "api_key") or (env.get(variable) if variable else None),
            _string(search, "base_url"),
            int(_number(search, "max_results", defaults.search.max_results, minimum=1)),
        ),
    )


def _delegation(table: dict[str, Any]) -> DelegationSettings:
    defaults = DelegationSettings()
    return DelegationSettings(
        max_requests=int(_number(table, "max_requests", defaults.max_requests, minimum=1)),
        max_parallel=int(_number(table, "max_parallel", defaults.max_parallel, minimum=1)),
        max_depth=int(_number(table, "max_depth", defaults.max_depth, minimum=0)),
    )


def _skills(table: dict[str, Any]) -> SkillSettings:
    defaults = SkillSettings()
    flags = {key: table.get(key, getattr(defaults, key)) for key in ("enabled", "project", "user")}
    if not all(isinstance(value, bool) for value in flags.values()):
        raise ConfigError("config.toml: [skills] enabled, project and user must be true or false")
    return SkillSettings(
        **flags,
        shared=_choice(table, "shared", SHARED) or defaults.shared,
        max_chars=int(_number(table, "max_chars", defaults.max_chars, minimum=1000)),
    )


def _checkpoints(table: dict[str, Any]) -> CheckpointSettings:
    defaults = CheckpointSettings()
    enabled = table.get("enabled", defaults.enabled)
    if not isinstance(enabled, bool):
        raise ConfigError("config.toml: [checkpoints] enabled must be true or false")
    return CheckpointSettings(
        enabled=enabled,
        max_file_size=int(_number(table, "max_file_size", defaults.max_file_size, minimum=0)),
        max_files=int(_number(table, "max_files", defaults.max_files, minimum=1)),
        keep_days=_number(table, "keep_days", defaults.keep_days, minimum=0),
        max_total_mb=_number(table, "max_total_mb", defaults.max_total_mb, minimum=1),
    )


def _sandbox(table: dict[str, Any]) -> SandboxSettings:
    flags = {key: table.get(key, default) for key, default in _SANDBOX_FLAGS.items()}
    for key, value in flags.items():
        if not isinstance(value, bool):
            raise ConfigError(f"config.toml: [sandbox] {key} must be true or false")
    return SandboxSettings(
        enabled=flags["enabled"],
        required=flags["required"],
        network=_choice(table, "network", ("allow", "deny")) or "allow",
        writable=tuple(_strings(table, "writable")),
        hidden=tuple(_strings(table, "hidden")),
        mcp_servers=flags["mcp_servers"],
    )


_SANDBOX_FLAGS = {"enabled": True, "required": True, "mcp_servers": False}


def _mcp_servers(table: dict[str, Any]) -> tuple[McpServerSpec, ...]:
    """``[mcp_servers.<name>]``: ``command`` (+ ``args``, ``env``) or ``url`` (+ ``headers``,
    ``transport = "http" | "sse"``)."""
    servers: list[McpServerSpec] = []
    for name in table:
        label = f"[mcp_servers.{name}]"
        section = _table(table, name, label)
        command, url = _string(section, "command"), _string(section, "url")
        if (command is None) == (url is None):
            raise ConfigError(f"config.toml: {label} needs either command or url")
        if command is not None:
            env = _string_table(section, "env", f"{label} env")
            servers.append(StdioServer(name, command, tuple(_strings(section, "args")), env))
            continue
        sse = _choice(section, "transport", ("http", "sse")) == "sse"
        headers = _string_table(section, "headers", f"{label} headers")
        servers.append(HttpServer(name, url or "", headers, "sse" if sse else "http"))
    return tuple(servers)


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
    if key := settings.web.search.api_key:
        secrets.setdefault("WEB_SEARCH_API_KEY", key)
    return secrets


def user_config_home() -> Path:
    """Where editors keep their settings on Linux (and Zed on macOS): ``$XDG_CONFIG_HOME``."""
    return Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
