"""``initialize`` and ``authenticate``: answered without importing pydantic, to start fast."""

from __future__ import annotations

from typing import Any

from acp_server import __version__
from acp_server.handlers import params
from acp_server.handlers.state import ClientInfo, ServerState
from acp_server.jsonrpc.connection import Reply
from acp_server.jsonrpc.errors import AUTH_REQUIRED, RpcError
from acp_server.jsonrpc.values import as_object
from acp_server.protocol.methods import PROTOCOL_VERSION
from agent_core.config import Settings
from agent_core.models.catalog import describe

API_KEY_METHOD = "api-key"
LOGIN_METHOD = "heron-login"
API_KEY_HELP = (
    "Heron uses your model provider's API key. Run `heron login` in a terminal (it asks for the "
    "provider and the key and stores them in ~/.heron/config.toml), or set ANTHROPIC_API_KEY or "
    "OPENAI_API_KEY and HERON_MODEL=<provider>:<model> in the agent's environment; then restart "
    "the agent. HERON_MODEL=scripted:echo works offline without a key."
)
LOGIN_HELP = "Choose a provider and paste its API key; Heron keeps it in ~/.heron/config.toml."


async def initialize(state: ServerState, raw: Any) -> Reply:
    request = params.as_object(raw)
    params.integer(request, "protocolVersion")  # any version gets our only one, v1
    name = (as_object(request.get("clientInfo")) or {}).get("name")
    state.client = ClientInfo(
        name=name if isinstance(name, str) else "unknown",
        capabilities=as_object(request.get("clientCapabilities")) or {},
    )
    result: dict[str, Any] = {
        "protocolVersion": PROTOCOL_VERSION,
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {
                "image": accepts_images(state.settings),
                "audio": False,
                "embeddedContext": True,
            },
            "mcpCapabilities": {"http": True, "sse": True},
            "sessionCapabilities": {
                "additionalDirectories": {},
                "list": {},
                "resume": {},
                "close": {},
                "delete": {},
                "fork": {},  # unstable in ACP v1
                "systemPrompt": {"mode": {"override": {}}},  # stable since 1.30; unstable here
            },
        },
        "agentInfo": {"name": "heron", "title": "Heron", "version": __version__},
        "authMethods": auth_methods(state.client),
    }
    return Reply(result, after=lambda: state.run_once("preload", state.preload))


def auth_methods(client: ClientInfo) -> list[dict[str, Any]]:
    """The key in the environment or config file; and ``heron login``, which clients that run
    terminal auth methods (``auth.terminal``) start for the user."""
    methods: list[dict[str, Any]] = [
        {"id": API_KEY_METHOD, "name": "Use a provider API key", "description": API_KEY_HELP}
    ]
    if client.can("auth", "terminal"):
        login = {"id": LOGIN_METHOD, "name": "Log in with an API key", "description": LOGIN_HELP}
        methods.append({**login, "type": "terminal", "args": ["login"]})
    return methods


async def authenticate(state: ServerState, raw: Any) -> dict[str, Any]:
    method_id = params.string(params.as_object(raw), "methodId")
    if method_id not in (API_KEY_METHOD, LOGIN_METHOD):
        raise RpcError.invalid_params(f"unknown auth method {method_id!r}; use {API_KEY_METHOD!r}")
    require_credentials(state)
    return {}


def require_credentials(state: ServerState) -> None:
    """Sessions need a model that can be reached; until then, -32000 saying what to do."""
    if not state.settings.has_credentials():
        raise RpcError(AUTH_REQUIRED, f"Authentication required: {API_KEY_HELP}")


def accepts_images(settings: Settings) -> bool:
    """Whether the configured model takes images, so the editor may attach them."""
    if not settings.model:
        return False
    provider, _, model_id = settings.model.partition(":")
    return describe(provider, model_id, settings.models.get(settings.model)).images
