"""A network link with a round trip, between the agent and the fake model server: a TCP proxy
on 127.0.0.1 that holds every byte for half the round trip each way, and a connection's
opening for a whole one (TCP's handshake). Loopback alone has no latency, so a cost that is
paid once per connection (a new TCP and TLS handshake) does not show there; against a real
API it is a round trip or two each time.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from types import TracebackType

CHUNK = 64 * 1024


class FarLink:
    """``with FarLink(port, round_trip_s) as link``: ``link.port`` reaches ``port`` across it;
    ``link.connections`` counts the connections opened through it."""

    def __init__(self, upstream_port: int, round_trip_s: float) -> None:
        self._upstream, self._one_way = upstream_port, round_trip_s / 2
        self.port = 0
        self.connections = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stop: asyncio.Event | None = None

    def __enter__(self) -> FarLink:
        ready = threading.Event()

        async def serve() -> None:
            self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
            server = await asyncio.start_server(self._connected, "127.0.0.1", 0)
            self.port = server.sockets[0].getsockname()[1]
            ready.set()
            async with server:
                await self._stop.wait()

        self._thread = threading.Thread(target=asyncio.run, args=(serve(),), daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(10)

    async def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        # Cancelled when the link closes: the connection ends with it. (asyncio's stream server
        # prints a handler that ends cancelled as an error.)
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(2 * self._one_way)  # the TCP handshake's round trip
            try:
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self._upstream)
            except OSError:
                writer.close()
                return
            await asyncio.gather(self._carry(reader, up_writer), self._carry(up_reader, writer))

    async def _carry(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        """Bytes from ``source`` to ``sink``, each arriving ``_one_way`` after it was read; the
        end of the stream too."""
        in_flight: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def receive() -> None:
            while True:
                data = await source.read(CHUNK)
                in_flight.put_nowait((time.monotonic() + self._one_way, data))
                if not data:
                    return

        async def deliver() -> None:
            while True:
                due, data = await in_flight.get()
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                if not data:
                    with contextlib.suppress(OSError):
                        sink.write_eof()
                    return
                sink.write(data)
                await sink.drain()

        with contextlib.suppress(OSError):
            await asyncio.gather(receive(), deliver())
        sink.close()
