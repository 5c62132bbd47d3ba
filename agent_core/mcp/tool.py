"""An MCP server's tool as a Heron tool: ``mcp__<server>__<tool>``, with the server's schema,
asked for like any other tool the user has not allowed, and shown with what it returned."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from agent_core.approval.gate import admit
from agent_core.approval.permissions import ApprovalRequest
from agent_core.errors import ToolError
from agent_core.events import TextContent, ToolCallUpdated, ToolKind
from agent_core.mcp.connection import McpConnection, RemoteTool
from agent_core.mcp.results import from_call_result
from agent_core.safety.policy import ToolUse
from agent_core.tools.base import SchemaArguments, ToolContext, ToolOutput

MAX_NAME = 64  # what the providers accept for a function name
PREVIEW_CHARS = 2000


class McpTool:
    kind: ToolKind = "other"
    read_only = False  # servers' hints are not trusted to run calls side by side

    def __init__(self, name: str, server: McpConnection, remote: RemoteTool) -> None:
        self.name = name
        self.server, self.remote = server, remote
        self.description = remote.description or f"{remote.name} from MCP server {server.name}"
        schema = remote.input_schema if remote.input_schema.get("type") == "object" else {}
        self.arguments = SchemaArguments(schema or {"type": "object", "properties": {}})
        self.label = f"{server.name}: {remote.title or remote.name}"

    def title(self, arguments: Mapping[str, Any]) -> str:
        return self.label

    async def run(self, arguments: dict[str, Any], context: ToolContext) -> ToolOutput:
        action = ToolUse(self.name, self.label, self.remote.read_only)
        shown = json.dumps(arguments, ensure_ascii=False, indent=2)
        request = ApprovalRequest(
            context.call_id,
            self.label,
            self.kind,
            content=(TextContent(shown[:PREVIEW_CHARS]),) if arguments else (),
        )
        await admit(context, action, request)
        result = from_call_result(await self.server.call(self.remote.name, arguments))
        if result.shown:
            await context.report(ToolCallUpdated(context.call_id, content=result.shown))
        if result.is_error:
            raise ToolError(result.text)
        return ToolOutput(result.text, result.images)


def tool_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>`` in the characters every provider accepts, at most 64."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", f"mcp__{server}__{tool}")[:MAX_NAME]
