"""A live workspace: what a watcher sees change (``agent_core/watching``) told to the sessions
at once, without waiting for a prompt.

- commands or skills added, changed or removed: ``available_commands_update`` (read again from
  disk, through ``safety/safe_open.py``, as ``announce_commands`` always reads them);
- the project's instructions (AGENTS.md and kin) or the user's: today's notice, the system prompt
  left as it is until ``/reload``;
- ``config.toml``: read again (credentials, MCP servers, models), as the next prompt would;
  new MCP servers start now, their tools reach the next prompt;
- the memory files: followed, told to no one yet (the agent writes them itself, in turns of
  any session, and the watcher cannot tell its writes from the user's).

One watcher per workspace and one for Heron's home, shared by the sessions in them, started
once a new session is warm and no prompt of it runs (``follow``: a first prompt sent at once
goes first), stopped with their last session (``forget``).
Where the watcher cannot run, or ``[workspace] watch = false``, it is said once in the log and
the sessions rely on the checks each prompt makes anyway.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from acp_server.handlers.commands import announce_commands
from acp_server.handlers.state import ServerState
from acp_server.session import Session

if TYPE_CHECKING:
    from agent_core.watching.targets import Kind, Targets
    from agent_core.watching.watcher import FolderWatch

log = logging.getLogger("heron.live")

START_WAIT_S = 1.0  # the most a session's follow-up waits for its watch to be laid


class LiveWorkspaces:
    """The server's watchers, by root, and what each change becomes for a session."""

    def __init__(self, state: ServerState) -> None:
        self._state = state
        self._watches: dict[str, FolderWatch] = {}
        self.problem: str | None = None  # why watching stopped (said once)

    async def follow(self, session: Session) -> None:
        """Watch the session's workspace and Heron's home (each once, however many sessions)."""
        state = self._state
        if not state.settings.watch:
            self._give_up("turned off in config.toml ([workspace] watch = false)")
            return
        if self.problem is not None or state.background is None:
            return
        await state.run_once("watcher", _load_watcher)
        if state.sessions.get(session.id) is not session:  # closed meanwhile: nothing to follow
            return
        cwd, home = session.setup.cwd, state.settings.home
        roots = (
            (f"workspace {cwd}", self._workspace(cwd), False),
            (f"home {home}", self._home, True),
        )
        for name, targets, is_home in roots:
            watch = self._watches.get(name) or self._start(name, targets)
            watch.subscribe(session.id, lambda kinds, h=is_home: self._changed(session, kinds, h))
            with anyio.move_on_after(START_WAIT_S):
                await watch.started.wait()
        await self._catch_up(session)

    def forget(self, session_id: str) -> None:
        """The session closed: a watcher no session uses any more stops."""
        for name, watch in list(self._watches.items()):
            watch.unsubscribe(session_id)
            if not watch.subscribers:
                watch.stop()
                del self._watches[name]

    def close(self) -> None:
        """Every watcher stopped (the server is ending)."""
        for watch in self._watches.values():
            watch.stop()
        self._watches.clear()

    def _start(self, name: str, targets: Callable[[], Targets]) -> FolderWatch:
        from agent_core.watching.watcher import FolderWatch

        assert self._state.background is not None
        watch = self._watches[name] = FolderWatch(name, targets, self._give_up)
        watch.start(self._state.background)
        log.info("watching %s", name)
        return watch

    def _workspace(self, cwd: Path) -> Callable[[], Targets]:
        from agent_core.watching.targets import workspace_targets

        settings = lambda: self._state.settings  # noqa: E731 - read when the watch is laid
        return lambda: workspace_targets(cwd, settings().skills, settings().home)

    def _home(self) -> Targets:
        from agent_core.watching.targets import home_targets

        settings = self._state.settings
        return home_targets(
            settings.home,
            settings.skills,
            settings.user_instructions,
            memory=settings.memory.enabled,
        )

    def _give_up(self, reason: str) -> None:
        """Said once: from now on, changes are seen at each prompt, as before watching."""
        if self.problem is None:
            self.problem = reason
            log.warning("not watching files: %s; changes are checked at each prompt", reason)
        for watch in self._watches.values():
            watch.stop()
        self._watches.clear()

    async def _catch_up(self, session: Session) -> None:
        """What changed before the watch was laid (it waits for a first prompt sent at once),
        told now as the watcher would have told it; the instructions' notice is told once."""
        state = self._state
        if state.config.refresh():
            await self._changed(session, frozenset({"config"}), is_home=True)
        else:
            await announce_commands(state, session, if_changed=True)
        await session.tell_about_changed_instructions()

    async def _changed(self, session: Session, kinds: frozenset[Kind], is_home: bool) -> None:
        state = self._state
        if "config" in kinds:
            state.config.refresh()  # one stat when another session read it already
            session.follow_config()
        if kinds & {"commands", "config"}:
            await announce_commands(state, session)
        if "instructions" in kinds:
            if is_home:
                mine = state.settings.user_instructions
                await session.tell_about_changed_files([p for p in mine if p.exists()] or mine)
            else:
                await session.tell_about_changed_instructions()


def live_workspaces(state: ServerState) -> LiveWorkspaces:
    """The server's watchers (made with the first session)."""
    if state.live is None:
        state.live = LiveWorkspaces(state)
    return state.live


def _load_watcher() -> None:
    """Off the event loop, once: the watcher (and what it follows) and where its changes come
    from here."""
    from agent_core.watching import watcher

    watcher.source()
