"""``authenticate`` and ``logout``, and the credentials sessions are built with.

Heron's credentials are the model provider's API key, from the environment or ``config.toml``.
``heron login`` (which editors run as the terminal auth method) writes it into the file while
this process runs, so every method that depends on it reads the file again when it changed
(``ConfigWatch.refresh``: one ``stat`` otherwise): ``initialize``, ``authenticate``, the
methods that open a session, ``logout``, and each prompt.

A running session keeps its model until its next prompt; that prompt builds the model again
when the keys or endpoints it was built with changed. So a session whose key was refused
works after ``heron login`` without being opened again, and after ``logout`` its next prompt
answers -32000 like a new session would. Other settings apply to sessions opened afterwards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acp_server.handlers import params
from acp_server.jsonrpc.errors import AUTH_REQUIRED, INTERNAL_ERROR, RpcError
from agent_core.config import Settings
from agent_core.errors import ConfigError, ModelConfigError
from agent_core.providers import PROVIDER_ENV

if TYPE_CHECKING:  # `auth_methods` is part of initialize's answer, given before these load
    from acp_server.handlers.client import ClientInfo
    from acp_server.handlers.state import ServerState
    from acp_server.session import Session

API_KEY_METHOD = "api-key"
LOGIN_METHOD = "heron-login"


def api_key_help(settings: Settings) -> str:
    """What to do for a key, naming the config file this agent really reads."""
    return (
        "Heron uses your model provider's API key. Run `heron login` in a terminal (it asks for "
        f"the provider and the key and stores them in {_config_file(settings)}; the running agent "
        "reads it from there, no restart needed), or set ANTHROPIC_API_KEY or OPENAI_API_KEY "
        "and HERON_MODEL=<provider>:<model> in the agent's environment and restart the agent. "
        "HERON_MODEL=scripted:echo works offline without a key."
    )


def auth_methods(client: ClientInfo, settings: Settings) -> list[dict[str, Any]]:
    """The key in the environment or config file; and ``heron login``, which clients that run
    terminal auth methods (``auth.terminal``) start for the user."""
    key = {"id": API_KEY_METHOD, "name": "Use a provider API key"}
    methods: list[dict[str, Any]] = [{**key, "description": api_key_help(settings)}]
    if client.can("auth", "terminal"):
        file = _config_file(settings)
        about = f"Choose a provider and paste its API key; Heron keeps it in {file}."
        login = {"id": LOGIN_METHOD, "name": "Log in with an API key", "description": about}
        methods.append({**login, "type": "terminal", "args": ["login"]})
    return methods


def _config_file(settings: Settings) -> str:
    return str(settings.home / "config.toml")


async def authenticate(state: ServerState, raw: Any) -> dict[str, Any]:
    method_id = params.string(params.as_object(raw), "methodId")
    if method_id not in (API_KEY_METHOD, LOGIN_METHOD):
        raise RpcError.invalid_params(f"unknown auth method {method_id!r}; use {API_KEY_METHOD!r}")
    require_credentials(state)
    return {}


def require_credentials(state: ServerState) -> None:
    """Sessions need a model that can be reached; until then, -32000 saying what to do."""
    state.config.refresh()
    if not state.settings.has_credentials():
        raise RpcError(AUTH_REQUIRED, f"Authentication required: {api_key_help(state.settings)}")


async def logout(state: ServerState, raw: Any) -> dict[str, Any]:
    """Take the keys ``heron login`` saved out of ``config.toml``; then new sessions, and the
    next prompt of open ones, ask for authentication again. A key the configured models would
    still get from the environment is out of Heron's reach: that is an error naming it."""
    from agent_core.config_keys import remove_api_keys

    if raw is not None:
        params.as_object(raw)
    try:
        removed = remove_api_keys(state.settings.home)
    except ConfigError as exc:
        raise RpcError(INTERNAL_ERROR, f"Cannot log out: {exc}") from exc
    state.config.refresh()
    settings = state.settings
    used = {spec.partition(":")[0] for spec in (settings.model or "", *settings.fallback_models)}
    keyed = [p for p in PROVIDER_ENV if p in used and settings.provider(p).api_key]
    left = sorted({PROVIDER_ENV[p][0] for p in keyed})  # the file has none now: the environment
    if left:
        names = " and ".join(left)
        done = f"Removed the key saved in {settings.config_file}, but" if removed else "But"
        raise RpcError(
            INTERNAL_ERROR,
            f"{done} {names} {'is' if len(left) == 1 else 'are'} set in the agent's environment, "
            "which Heron cannot change: you are still logged in. Remove it from where your "
            "editor starts Heron, then restart the agent.",
            {"environment": left},
        )
    return {}


def follow_credentials(state: ServerState, session: Session) -> None:
    """Before a prompt: build the session's model again if its keys or endpoints changed
    since it was built (a login, a logout, an edit of ``config.toml``)."""
    from agent_core.models.registry import create_model

    state.config.refresh()
    if state.config.problem is not None:  # a file being edited: keep the model as it is
        return
    spec = session.model_spec
    now = state.settings.credentials(spec)
    if now == session.credentials:
        return
    try:
        model = create_model(spec, state.settings)
    except ModelConfigError as exc:
        raise RpcError(
            AUTH_REQUIRED, f"Authentication required: {exc}. {api_key_help(state.settings)}"
        ) from exc
    session.switch_model(spec, model, now)
