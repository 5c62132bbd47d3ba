"""NDJSON framing, a stdio transport and a bidirectional JSON-RPC 2.0 connection.

Knows no ACP method names and imports nothing else from the project.
"""

from acp_server.jsonrpc.connection import Connection, Dispatcher, Reply
from acp_server.jsonrpc.errors import RpcError
from acp_server.jsonrpc.transport import StdioTransport

__all__ = ["Connection", "Dispatcher", "Reply", "RpcError", "StdioTransport"]
