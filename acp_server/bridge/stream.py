"""A session's ``session/update`` stream, and the two ways onto it.

``show`` is for the conversation: the update goes to the editor and into the session's stored
transcript, so ``session/load`` replays it. ``tell`` is for what only matters now (a title, a
usage line from the store, the model picker): it goes to the editor and is not kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acp_server.bridge.updates import to_session_update
from acp_server.jsonrpc.connection import Connection

if TYPE_CHECKING:
    from acp_server.bridge.transcript import TranscriptBuilder
    from agent_core.events import Event


class UpdateStream:
    def __init__(
        self,
        connection: Connection,
        session_id: str,
        transcript: TranscriptBuilder,
        *,
        notices: bool,  # the editor shows Heron's notices (``session.notices``)
        compaction: bool,  # the editor shows compactions (``session.compaction``)
    ) -> None:
        self.connection, self.session_id, self.transcript = connection, session_id, transcript
        self.notices, self.compaction = notices, compaction

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
        update = to_session_update(event, notices=self.notices, compaction=self.compaction)
        if update is not None:
            await self.show(update)
