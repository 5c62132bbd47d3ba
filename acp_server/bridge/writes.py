"""Store writes that do not hold up a turn: queued in order, written by one task, all done
before the prompt is answered.

Each completed message is still committed as soon as the writer gets to it (within a
millisecond or so, while the next model request is already under way), so a killed agent loses
at most what it was writing; the turn just never waits for the disk.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import asynccontextmanager

import anyio
from anyio.streams.memory import MemoryObjectSendStream

Write = Callable[[], Awaitable[None]]


class WriteBehind:
    def __init__(self) -> None:
        self._queue: MemoryObjectSendStream[Write] | None = None

    async def submit(self, write: Write) -> None:
        """Queue ``write`` while a turn runs; outside one, do it now."""
        if self._queue is None:
            await write()
        else:
            self._queue.send_nowait(write)

    @asynccontextmanager
    async def running(self) -> AsyncGenerator[None, None]:
        """For the length of a turn: leaving waits until every queued write is done."""
        send, receive = anyio.create_memory_object_stream[Write](max_buffer_size=10_000)
        async with anyio.create_task_group() as group:

            async def drain() -> None:
                async with receive:
                    async for write in receive:
                        await write()

            group.start_soon(drain)
            self._queue = send
            try:
                yield
            finally:
                self._queue = None
                send.close()
