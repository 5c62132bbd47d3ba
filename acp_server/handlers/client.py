"""What ``initialize`` told Heron about the editor: its name and what it can do."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from acp_server.jsonrpc.values import as_object


class ClientInfo(NamedTuple):
    name: str = "unknown"
    capabilities: Mapping[str, Any] = MappingProxyType({})

    def can(self, *path: str) -> bool:
        """``can("fs", "readTextFile")``: is that capability advertised (true or an object)?"""
        node: Any = self.capabilities
        for key in path:
            node = (as_object(node) or {}).get(key)
        return node is True or as_object(node) is not None
