"""``authenticate`` and ``logout``, and the credentials sessions are built with.

Heron's credentials are the model provider's API key, from the environment or ``config.toml``.
``heron login`` (which editors run as the terminal auth method) writes it into the file while
this process runs, so every method that depends on it reads the file again when it changed
(``ConfigWatch.refresh``: one ``stat`` otherwise): ``initialize``, ``authenticate``, the
methods that open a session, ``logout``, and each prompt.

``logout`` logs out whatever the key's source: it takes the keys ``heron login`` saved out of
``config.toml``, and the process ignores the keys in its environment from then on
(``ConfigWatch.log_out``: the settings are read as if those variables were unset, since Heron
cannot unset them where the editor starts it). Logged out lasts until ``authenticate``, or
until ``config.toml`` holds a provider's key again (``heron login``, or the user's edit); a
restart of the agent also brings the environment's keys back, which the answer's ``_meta``
and the log say.

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

if TYPE_CHECKING:  # `auth_methods` is part of initialize's answer, given before these load
    from acp_server.handlers.client import ClientInfo
    from acp_server.handlers.state import ServerState
    from acp_server.session import Session

API_KEY_METHOD = "api-key"
LOGIN_METHOD = "heron-login"


def api_key_help(settings: Settings) -> str:
    """What to do for a key, naming the config file this agent really reads (and, after a
    ``logout``, the environment's keys it ignores)."""
    ignored = ""
    if settings.ignored_keys:
        names = " and ".join(settings.ignored_keys)
        ignored = (
            f"You logged out: Heron ignores {names} in its environment until you log in again "
            "(authenticate) or restart the agent. "
        )
    return ignored + (
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
    if state.config.logged_out:  # the environment's keys count again
        import logging

        state.config.log_in()
        logging.getLogger("heron.auth").info("authenticate: logged in again")
    require_credentials(state)
    return {}


def require_credentials(state: ServerState) -> None:
    """Sessions need a model that can be reached; until then, -32000 saying what to do."""
    state.config.refresh()
    if not state.settings.has_credentials():
        raise RpcError(AUTH_REQUIRED, f"Authentication required: {api_key_help(state.settings)}")


async def logout(state: ServerState, raw: Any) -> dict[str, Any]:
    """Log out of every key, whatever its source: take the keys ``heron login`` saved out of
    ``config.toml``, and ignore the ones in the environment until the user logs in again. Then
    new sessions, and the next prompt of open ones, answer -32000 as with no key at all.

    The answer names the variables that still hold a key in ``_meta.heron.environmentKeysIgnored``
    (a restart of the agent uses them again); without any, it is ``{}``."""
    import logging

    from agent_core.config_keys import remove_api_keys

    if raw is not None:
        params.as_object(raw)
    try:
        removed = remove_api_keys(state.settings.home)
    except ConfigError as exc:
        raise RpcError(INTERNAL_ERROR, f"Cannot log out: {exc}") from exc
    ignored = state.config.log_out()
    log = logging.getLogger("heron.auth")
    if removed:
        log.info(
            "logout: removed the key of %s from %s",
            ", ".join(removed),
            _config_file(state.settings),
        )
    if not ignored:
        return {}
    one = len(ignored) == 1
    log.info(
        "logout: the %s in %s, set in the agent's environment, %s ignored until the user logs "
        "in again (authenticate, or heron login); a restart of the agent uses %s again",
        "key" if one else "keys",
        " and ".join(ignored),
        "is" if one else "are",
        "it" if one else "them",
    )
    return {"_meta": {"heron": {"environmentKeysIgnored": list(ignored)}}}


def follow_credentials(state: ServerState, session: Session) -> None:
    """Before a prompt: build the session's model again if its keys or endpoints changed
    since it was built (a login, a logout, an edit of ``config.toml``)."""
    from agent_core.models.registry import create_model

    state.config.refresh()
    if state.config.problem is not None and not state.config.logged_out:
        return  # a file being edited: keep the model as it is (logged out: never its key)
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
