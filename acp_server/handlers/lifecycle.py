"""``initialize``: answered without importing pydantic, to start fast."""

from __future__ import annotations

from typing import Any

from acp_server import __version__
from acp_server.handlers import params
from acp_server.handlers.auth import auth_methods
from acp_server.handlers.state import ClientInfo, ServerState
from acp_server.jsonrpc.connection import Reply
from acp_server.jsonrpc.values import as_object
from acp_server.protocol.methods import PROTOCOL_VERSION
from agent_core.config import Settings
from agent_core.models.catalog import describe


async def initialize(state: ServerState, raw: Any) -> Reply:
    request = params.as_object(raw)
    params.integer(request, "protocolVersion")  # any version gets our only one, v1
    name = (as_object(request.get("clientInfo")) or {}).get("name")
    state.client = ClientInfo(
        name=name if isinstance(name, str) else "unknown",
        capabilities=as_object(request.get("clientCapabilities")) or {},
    )
    state.config.refresh()  # the model decides whether images are offered
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
            "auth": {"logout": {}},
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
        "authMethods": auth_methods(state),
    }
    return Reply(result, after=lambda: state.run_once("preload", state.preload))


def accepts_images(settings: Settings) -> bool:
    """Whether the configured model takes images, so the editor may attach them."""
    if not settings.model:
        return False
    provider, _, model_id = settings.model.partition(":")
    return describe(provider, model_id, settings.models.get(settings.model)).images
