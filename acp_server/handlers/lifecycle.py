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
API_KEY_HELP = (
    "Heron uses your model provider's API key. Set ANTHROPIC_API_KEY or OPENAI_API_KEY in the "
    "agent's environment (or under [providers.<name>] in ~/.heron/config.toml), choose a model "
    "with HERON_MODEL=<provider>:<model>, and restart the agent. "
    "HERON_MODEL=scripted:echo works offline without a key."
)


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
        "authMethods": [
            {"id": API_KEY_METHOD, "name": "Use a provider API key", "description": API_KEY_HELP}
        ],
    }
    return Reply(result, after=lambda: state.run_once("preload", state.preload))


async def authenticate(state: ServerState, raw: Any) -> dict[str, Any]:
    method_id = params.string(params.as_object(raw), "methodId")
    if method_id != API_KEY_METHOD:
        raise RpcError.invalid_params(f"unknown auth method {method_id!r}; use {API_KEY_METHOD!r}")
    if not has_credentials(state):
        raise RpcError(AUTH_REQUIRED, f"Authentication required: {API_KEY_HELP}")
    return {}


def has_credentials(state: ServerState) -> bool:
    """A scripted model needs no key; a local Chat Completions server needs only its URL."""
    model = state.settings.model
    if model is None:
        return False
    provider = state.settings.provider(model.partition(":")[0])
    return model.startswith("scripted:") or bool(
        provider.api_key or (model.startswith("openai-chat:") and provider.base_url)
    )


def accepts_images(settings: Settings) -> bool:
    """Whether the configured model takes images, so the editor may attach them."""
    if not settings.model:
        return False
    provider, _, model_id = settings.model.partition(":")
    return describe(provider, model_id, settings.models.get(settings.model)).images
