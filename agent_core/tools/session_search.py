"""``session_search``: find earlier conversations in this workspace (full-text)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from agent_core.errors import ToolError
from agent_core.events import ToolKind
from agent_core.tools.arguments import Arguments
from agent_core.tools.base import ToolContext


class SessionSearchArguments(Arguments):
    query: str = Field(
        min_length=1, description="Words to look for in earlier sessions of this workspace."
    )
    limit: int = Field(10, ge=1, le=50)


class SessionSearch:
    name = "session_search"
    kind: ToolKind = "search"
    read_only = True
    arguments = SessionSearchArguments
    description = (
        "Search earlier conversations in this workspace for what was decided or tried before. "
        "Returns one line per match: the session's title and id, the matching words in [brackets]."
    )

    def title(self, arguments: Mapping[str, Any]) -> str:
        query = arguments.get("query")
        return f"Search past sessions for `{query}`" if query else "Search past sessions"

    async def run(self, arguments: SessionSearchArguments, context: ToolContext) -> str:
        if context.search_sessions is None:
            raise ToolError("Past sessions are not available here.")
        lines = await context.search_sessions(arguments.query, arguments.limit)
        return "\n".join(lines) if lines else "(no earlier session mentions that)"
