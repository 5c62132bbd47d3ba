"""The stdio transport: frames in and out of the descriptors ``stdio.claim_stdio`` took.

Reads and writes use the event loop's readiness notifications; regular files (``heron acp <
trace.jsonl``) are read directly. A single writer task owns the output fd, so frames never
interleave.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from acp_server.jsonrpc.stdio import READ_CHUNK, pollable


class TransportClosed(Exception):
    """The peer stopped reading: the output pipe is gone."""


class StdioTransport:
    """Raw byte chunks from an input fd; whole frames to an output fd, written in order."""

    def __init__(self, in_fd: int, out_fd: int, *, already_read: bytes = b"") -> None:
        self._in_fd = in_fd
        self._already_read = already_read  # input read before the transport existed
        self._out_fd = out_fd
        self._pollable_in = pollable(in_fd)
        self._pollable_out = pollable(out_fd)
        if self._pollable_out:
            os.set_blocking(out_fd, False)
        send, receive = anyio.create_memory_object_stream[bytes](max_buffer_size=1024)
        self._outbox: MemoryObjectSendStream[bytes] = send
        self._pending: MemoryObjectReceiveStream[bytes] = receive
        self._closed = False
        self._queued = 0  # frames handed to send()
        self._written = 0  # frames the writer has written
        self._wrote = anyio.Event()  # set (and replaced) after every write

    async def chunks(self) -> AsyncIterator[bytes]:
        """Yield input as it arrives until end of file."""
        if self._already_read:
            yield self._already_read
        while True:
            if self._pollable_in:
                try:
                    await anyio.wait_readable(self._in_fd)
                except OSError:
                    self._pollable_in = False
            try:
                chunk = os.read(self._in_fd, READ_CHUNK)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                with contextlib.suppress(OSError):
                    os.close(self._in_fd)
                return
            yield chunk

    async def send(self, frame: bytes) -> None:
        """Queue one frame (it must end with a newline); the writer task sends it."""
        if self._closed:
            raise TransportClosed
        self._queued += 1
        await self._outbox.send(frame)

    async def flush(self) -> None:
        """Wait until every frame queued so far has been written (or the output is gone)."""
        target = self._queued
        while self._written < target and not self._closed:
            await self._wrote.wait()

    async def run_writer(self) -> None:
        """Write queued frames until ``close()``; batches whatever is waiting into one write."""
        async with self._pending:
            async for frame in self._pending:
                batch = [frame]
                while True:
                    try:
                        batch.append(self._pending.receive_nowait())
                    except (anyio.WouldBlock, anyio.EndOfStream):
                        break
                try:
                    await self._write_all(b"".join(batch))
                except OSError:
                    self._closed = True  # the peer hung up; drop the rest quietly
                    break
                finally:
                    self._written += len(batch)
                    self._wrote.set()
                    self._wrote = anyio.Event()
        with contextlib.suppress(OSError):
            os.close(self._out_fd)  # the peer sees end of file

    def close(self) -> None:
        """No more frames: the writer drains what is queued, then stops."""
        self._closed = True
        self._outbox.close()

    async def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._out_fd, view)
            except BlockingIOError:
                await anyio.wait_writable(self._out_fd)
                continue
            view = view[written:]
