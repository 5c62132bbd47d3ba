"""What ``initialize`` answers, and what it learns about the editor: pure and cheap to import,
so that ``front_door`` answers it before the event loop and the server are loaded."""

from __future__ import annotations

from typing import Any

from acp_server import __version__
from acp_server.handlers import params
from acp_server.handlers.auth import auth_methods
from acp_server.handlers.client import ClientInfo
from acp_server.jsonrpc.values import as_object
from acp_server.protocol.methods import PROTOCOL_VERSION
from agent_core.config import Settings
from agent_core.models.catalog import describe


def greet(raw: Any, settings: Settings) -> tuple[ClientInfo, dict[str, Any]]:
    """The editor as ``initialize`` describes it, and the answer; raises ``RpcError`` for
    invalid params."""
    request = params.as_object(raw)
    params.integer(request, "protocolVersion")  # any version gets our only one, v1
    name = (as_object(request.get("clientInfo")) or {}).get("name")
    client = ClientInfo(
        name=name if isinstance(name, str) else "unknown",
        capabilities=as_object(request.get("clientCapabilities")) or {},
    )
    result: dict[str, Any] = {
        "protocolVersion": PROTOCOL_VERSION,
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {
                "image": accepts_images(settings),
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
                "systemPrompt": {"mode": {"override": {}}},  # stable since 1.30
            },
            # The draft rewind RFD's (unstable): session/rewind and session/edit_prompt.
            "rewindSession": {"supported": True, "supportsEditPrompt": True},
        },
        "agentInfo": {"name": "heron", "title": "Heron", "version": __version__},
        "authMethods": auth_methods(client, settings),
    }
    return client, result


def accepts_images(settings: Settings) -> bool:
    """Whether the configured model takes images, so the editor may attach them."""
    if not settings.model:
        return False
    provider, _, model_id = settings.model.partition(":")
    return describe(provider, model_id, settings.models.get(settings.model)).images
