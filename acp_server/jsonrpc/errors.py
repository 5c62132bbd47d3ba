"""JSON-RPC 2.0 error codes and the exception handlers raise to answer with one."""

from __future__ import annotations

from typing import Any

from acp_server.jsonrpc.values import as_object

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
REQUEST_CANCELLED = -32800
# Implementation-defined server errors used by ACP.
AUTH_REQUIRED = -32000
RESOURCE_NOT_FOUND = -32002

MAX_DETAIL_CHARS = 500


class RpcError(Exception):
    """An error answer to a request: raise it from a handler, catch it from ``request()``."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        # ACP clients show the message on one line; never let a newline through.
        self.code = code
        self.message = " ".join(message.split()) or "error"
        self.data = data
        super().__init__(f"{self.message} ({code})")

    @property
    def explained(self) -> str:
        """The message with the peer's own details, where the ACP SDKs put them: an error a
        client's handler raised arrives as "Internal error" with ``data.details``."""
        data = self.data
        fields = as_object(data) or {}
        detail = data if isinstance(data, str) else fields.get("details", fields.get("message"))
        if not isinstance(detail, str) or not detail.strip() or detail in self.message:
            return self.message
        detail = " ".join(detail.split())
        if len(detail) > MAX_DETAIL_CHARS:
            detail = detail[:MAX_DETAIL_CHARS] + "…"
        return f"{self.message}: {detail}"

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error

    @classmethod
    def from_json(cls, error: Any) -> RpcError:
        fields = as_object(error) or {}
        code, message = fields.get("code"), fields.get("message")
        if isinstance(code, int) and isinstance(message, str):
            return cls(code, message, fields.get("data"))
        return cls(INTERNAL_ERROR, f"malformed error from peer: {error!r}")

    @classmethod
    def invalid_params(cls, message: str, data: Any = None) -> RpcError:
        return cls(INVALID_PARAMS, f"Invalid params: {message}", data)

    @classmethod
    def method_not_found(cls, method: str) -> RpcError:
        return cls(METHOD_NOT_FOUND, f"Method not found: {method}", {"method": method})
