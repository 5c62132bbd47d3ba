"""A session's ``session/update`` stream, and the two ways onto it.

``show`` is for the conversation: the update goes to the editor and into the session's stored
transcript, so ``session/load`` replays it. ``tell`` is for what only matters now (a title, a
usage line from the store, the model picker): it goes to the editor and is not kept.

A subagent's work is a stream of its own, under its own session id, for an editor that takes
child sessions (``bridge.subagents``); its transcript joins its parent's when it ends, so a
replay shows it again. ``Children`` knows which of them are at work and how to stop each.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from acp_server.bridge.subagents import folded, to_announcement, to_ending, to_task
from acp_server.bridge.transcript import TranscriptBuilder
from acp_server.bridge.updates import to_session_update
from acp_server.jsonrpc.connection import Connection
from agent_core.events import SubagentEnded, SubagentEvent, SubagentStarted

if TYPE_CHECKING:
    from agent_core.events import Event


class Children:
    """A session's subagents, at any depth: each one's parent, and how to stop its work while
    it runs (None once it ended)."""

    def __init__(self) -> None:
        self.parents: dict[str, str] = {}
        self.stops: dict[str, Callable[[], None] | None] = {}

    def stop(self, session_id: str) -> bool:
        """Stop that subagent's work; False when it is not at work."""
        stop = self.stops.get(session_id)
        if stop is not None:
            stop()
        return stop is not None


class UpdateStream:
    def __init__(
        self,
        connection: Connection,
        session_id: str,
        transcript: TranscriptBuilder,
        *,
        notices: bool,  # the editor shows Heron's notices (``session.notices``)
        compaction: bool,  # the editor shows compactions (``session.compaction``)
        subagents: bool = False,  # the editor takes child sessions (``subagents``)
        children: Children | None = None,  # the top session's, shared by its subagents
    ) -> None:
        self.connection, self.session_id, self.transcript = connection, session_id, transcript
        self.notices, self.compaction, self.subagents = notices, compaction, subagents
        self.children = Children() if children is None else children
        self._streams: dict[str, UpdateStream] = {}  # the subagents at work, by session id

    async def show(self, update: dict[str, Any]) -> None:
        """Send ``update`` and keep it in the transcript, for replay."""
        self.transcript.feed(update)
        await self.tell(update)

    async def tell(self, update: dict[str, Any]) -> None:
        """Send ``update``; it is not part of the conversation and is not replayed."""
        params = {"sessionId": self.session_id, "update": update}
        await self.connection.notify("session/update", params)

    async def report(self, event: Event) -> None:
        """``event`` as the editor shows it (a notice it cannot show is dropped), kept."""
        match event:
            case SubagentStarted() | SubagentEvent() | SubagentEnded() if not self.subagents:
                if (shown := folded(event)) is not None:
                    await self.report(shown)
            case SubagentStarted():
                await self._started(event)
            case SubagentEvent():
                if (child := self._streams.get(event.session_id)) is not None:
                    await child.report(event.event)
            case SubagentEnded():
                await self._ended(event)
            case _:
                update = to_session_update(
                    event,
                    notices=self.notices,
                    compaction=self.compaction,
                    subagents=self.subagents,
                )
                if update is not None:
                    await self.show(update)

    async def _started(self, event: SubagentStarted) -> None:
        child = UpdateStream(
            self.connection,
            event.session_id,
            TranscriptBuilder(),
            notices=self.notices,
            compaction=self.compaction,
            subagents=True,
            children=self.children,
        )
        self._streams[event.session_id] = child
        self.children.parents[event.session_id] = self.session_id
        self.children.stops[event.session_id] = event.stop
        await self.show(to_announcement(event))  # before anything bears its id
        await child.show(to_task(event, self.session_id))

    async def _ended(self, event: SubagentEnded) -> None:
        self.children.stops[event.session_id] = None
        child = self._streams.pop(event.session_id, None)
        if child is not None:
            self.transcript.adopt(event.session_id, child.transcript.drain(finished=True))
        await self.show(to_ending(event))
