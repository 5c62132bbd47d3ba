"""Two JSON-RPC connections over real OS pipes: requests both ways, timeouts, cancellation."""

from __future__ import annotations

import os
from typing import Any

import anyio
import pytest

from acp_server.jsonrpc.connection import Connection
from acp_server.jsonrpc.errors import REQUEST_CANCELLED, RpcError
from acp_server.jsonrpc.transport import StdioTransport

pytestmark = pytest.mark.anyio


class Peer:
    """Answers `echo` at once, `slow` never; records notifications."""

    def __init__(self) -> None:
        self.notifications: list[tuple[str, Any]] = []
        self.cancelled = anyio.Event()

    async def handle_request(self, method: str, params: Any) -> Any:
        if method == "echo":
            return params
        if method == "slow":
            try:
                await anyio.sleep_forever()
            finally:
                self.cancelled.set()
        raise RpcError.method_not_found(method)

    async def handle_notification(self, method: str, params: Any) -> None:
        self.notifications.append((method, params))

    async def input_closed(self) -> None:
        return None

    def cancel_request(self, method: str, params: Any) -> bool:
        return False


def connected_pair() -> tuple[Connection, Connection, StdioTransport, StdioTransport]:
    a_to_b, b_from_a = os.pipe()[::-1]
    b_to_a, a_from_b = os.pipe()[::-1]
    a_transport = StdioTransport(a_from_b, a_to_b)
    b_transport = StdioTransport(b_from_a, b_to_a)
    return Connection(a_transport), Connection(b_transport), a_transport, b_transport


async def test_requests_and_notifications_both_ways() -> None:
    a, b, a_transport, _ = connected_pair()
    peer_a, peer_b = Peer(), Peer()
    async with anyio.create_task_group() as group:
        group.start_soon(a.serve, peer_a)
        group.start_soon(b.serve, peer_b)
        results = await a.request("echo", {"n": 1}), await b.request("echo", ["x"])
        with pytest.raises(RpcError) as error:
            await a.request("nope", {})
        await a.notify("hello", {"k": "v"})
        assert await a.request("echo", {}) == {}  # the notification was handled before this answer
        a_transport.close()  # b sees end of input, closes its side, and a sees it too
    assert results == ({"n": 1}, ["x"])
    assert error.value.code == -32601
    assert peer_b.notifications == [("hello", {"k": "v"})]


async def test_a_request_times_out_and_the_peer_is_told_to_cancel() -> None:
    a, b, a_transport, _ = connected_pair()
    peer_b = Peer()
    async with anyio.create_task_group() as group:
        group.start_soon(a.serve, Peer())
        group.start_soon(b.serve, peer_b)
        with pytest.raises(RpcError) as error:
            await a.request("slow", {}, timeout=0.1)
        with anyio.fail_after(2):
            await peer_b.cancelled.wait()  # $/cancel_request reached b and stopped its handler
        a_transport.close()
    assert error.value.code == REQUEST_CANCELLED
    assert "slow" in error.value.message


async def test_cancelling_the_caller_cancels_the_request_at_the_peer() -> None:
    a, b, a_transport, _ = connected_pair()
    peer_b = Peer()
    async with anyio.create_task_group() as group:
        group.start_soon(a.serve, Peer())
        group.start_soon(b.serve, peer_b)
        with anyio.move_on_after(0.1):
            await a.request("slow", {})
        with anyio.fail_after(2):
            await peer_b.cancelled.wait()
        a_transport.close()


async def test_pending_requests_fail_when_the_peer_goes_away() -> None:
    a, b, _, b_transport = connected_pair()
    async with anyio.create_task_group() as group:
        group.start_soon(a.serve, Peer())
        group.start_soon(b.serve, Peer())
        await anyio.sleep(0.05)

        async def close_b_soon() -> None:
            await anyio.sleep(0.1)
            b_transport.close()

        group.start_soon(close_b_soon)
        with pytest.raises(RpcError, match="closed"):
            await a.request("slow", {})


def test_a_peers_error_is_explained_with_the_details_its_sdk_put_in_data() -> None:
    assert RpcError(-32603, "Internal error", {"details": "denied"}).explained == (
        "Internal error: denied"
    )
    assert RpcError(-32603, "Internal error", "no\nreads").explained == "Internal error: no reads"
    assert RpcError(-32602, "Invalid params", {"errors": [1]}).explained == "Invalid params"
    assert RpcError(-32603, "Internal error: denied", {"details": "denied"}).explained == (
        "Internal error: denied"
    )
    assert len(RpcError(-32603, "x", {"message": "y" * 10_000}).explained) < 600
