"""The ``Tool`` port and what a tool gets to work with."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from agent_core.approvals import Approver
from agent_core.events import ToolKind
from agent_core.workspace import Workspace


@dataclass(frozen=True)
class ToolContext:
    call_id: str
    workspace: Workspace
    approver: Approver


class Tool(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def kind(self) -> ToolKind: ...

    @property
    def read_only(self) -> bool:
        """Read-only calls of one response run concurrently."""
        ...

    def parameters(self) -> dict[str, Any]:
        """JSON schema of the arguments, as the model sees it."""
        ...

    def title(self, arguments: Mapping[str, Any]) -> str:
        """How the call reads in the editor: "Read src/app.py", "Run `pytest -q`"."""
        ...

    async def run(self, arguments: Mapping[str, Any], context: ToolContext) -> str:
        """The result text for the model; raise ``ToolError`` for a failure it should see."""
        ...


Toolset = Mapping[str, Tool]
