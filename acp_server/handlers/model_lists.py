"""The model picker kept up to date: what the providers' models endpoints offer, asked in the
background once a session is open, and every open session told when that brings new models
(a ``config_option_update``)."""

from __future__ import annotations

import logging

from acp_server.bridge.modes import to_config_options
from acp_server.handlers.state import ServerState

log = logging.getLogger(__name__)


async def refresh_model_lists(state: ServerState) -> None:
    """Ask the providers whose list is due (``ModelLists.refresh``); tell the sessions if the
    lists changed. Never fails: a provider that does not answer lists nothing."""
    lists = state.model_lists
    if lists is None:
        return
    from agent_core.models.choices import listable

    try:
        in_use = [session.model_spec for session in state.sessions.values()]
        if not await lists.refresh(listable(state.settings, in_use)):
            return
        for session in list(state.sessions.values()):
            options = to_config_options(state.options(session))
            update = {"sessionUpdate": "config_option_update", "configOptions": options}
            await session.tell(update)  # not the conversation: not replayed
    except Exception:  # a background task's boundary: the server goes on without the lists
        log.exception("refreshing the model lists failed")
