"""One open ACP session: what it owns and what can be asked of it.

A session owns its agent (built on first use), the model it talks to, its permissions, its
checkpoints, the transcript the editor saw and the writes that store it, its MCP servers, its
terminal and its sandbox. The handlers validate a request, translate it, and call one of the
methods here; ``wiring`` builds the parts. The prompt path reads: router → ``handlers.prompt``
→ ``Session.prompt`` → ``Agent.run_turn``, whose events ``turn.stream_turn`` sends on.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import anyio
import anyio.abc

from acp_server.bridge.modes import SessionOptions, session_options
from acp_server.bridge.updates import to_iso_time
from acp_server.session_parts import SessionParts, SessionSetup
from agent_core.config import ConfigWatch
from agent_core.providers import ProviderSettings

if TYPE_CHECKING:  # the agent machinery loads after `initialize` is answered
    from acp_server.bridge.linked import Linked
    from acp_server.bridge.prompts import PromptMark
    from acp_server.rewind import RestoreMode, Rewound
    from agent_core.events import Event, StopReason
    from agent_core.loop.agent import Agent
    from agent_core.messages import Message, UserPart
    from agent_core.models.base import Model
    from agent_core.models.listing import ModelLists
    from agent_core.modes import Mode
    from agent_core.sessions.resilient import ResilientStore

TITLE_CHARS = 60


class Prompt(NamedTuple):
    """A ``session/prompt`` as the handler translated it."""

    blocks: list[dict[str, Any]]  # the content blocks, as sent
    parts: tuple[UserPart, ...]  # what the model is given
    message_id: str  # its id: the editor's, or one Heron made (a rewind names it)
    problems: tuple[str, ...] = ()  # linked files left out, and why


class Compact:
    """A slash command's outcome that compacts the conversation now (``/compact``)."""


COMPACT = Compact()
CommandOutcome = str | Compact | None  # the prompt to run instead | compact now | answered


class TurnHooks(Protocol):
    """What a prompt needs from the server around the turn."""

    def refresh_model(self, session: Session) -> None:
        """Build the model again if its credentials changed since (a login, a logout)."""
        ...

    async def run_command(self, session: Session, text: str) -> CommandOutcome:
        """A slash command (``text`` starts with ``/``)."""
        ...


class Session:
    def __init__(
        self,
        setup: SessionSetup,
        parts: SessionParts,
        store: ResilientStore,
        config: ConfigWatch,
        lists: ModelLists | None = None,
        *,
        titled: bool = False,  # loaded with a title, or past its first exchange
    ) -> None:
        self.setup, self._parts, self._store, self._config = setup, parts, store, config
        self._lists = lists  # what providers offer, for the model picker
        self.turn_lock = anyio.Lock()  # one prompt at a time; the others queue
        self.turn_scope: anyio.CancelScope | None = None  # what ``cancel`` stops now
        self.cancellations = 0  # prompts queued before the latest cancel do not run
        self.ticket = 0  # the cancels counted when the running prompt arrived
        self._agent: Agent | None = None
        self._building = anyio.Lock()  # one agent, however many ask
        self._titled = titled
        self._instructions: dict[Path, tuple[int, int]] | None = None  # as the prompt saw them
        self._mcp_generation = 0  # the MCP servers the agent's tools were made with
        self.commands_told: dict[str, Any] | None = None  # the last available_commands_update

    # -- what it is ---------------------------------------------------------------------

    @property
    def id(self) -> str:
        return self.setup.session_id

    @property
    def model_spec(self) -> str:
        return self._parts.choice.spec

    @property
    def model(self) -> Model:
        return self._parts.choice.model

    @property
    def credentials(self) -> tuple[ProviderSettings, ...]:
        """What the session's model was built with."""
        return self._parts.choice.credentials

    @property
    def thought_level(self) -> str:
        return self._parts.choice.thought_level

    @property
    def mode(self) -> Mode:
        return self._parts.permissions.mode

    def options(self, listed: Mapping[str, tuple[str, ...]] | None = None) -> SessionOptions:
        """Its mode, model and thought level and their choices (``listed``: what the providers'
        models endpoints offer, as known now)."""
        choice = self._parts.choice
        return session_options(
            self.mode,
            choice.spec,
            choice.thought_level,
            self._config.settings,
            self._parts.where or self._parts.sandbox.describe(),
            listed,
        )

    # -- the agent ------------------------------------------------------------------------

    @property
    def agent(self) -> Agent:
        """The agent, once ``ready`` has built it (built here, on the event loop, otherwise)."""
        if self._agent is None:
            self._agent = self._parts.maker.make_agent(self._parts.maker.system_prompt(), self.save)
        return self._agent

    async def ready(self) -> Agent:
        """The agent, built on first use; its system prompt, which reads the workspace's files
        and asks git, is made in a worker thread (left to finish alone when the wait is
        cancelled)."""
        from agent_core.context.files import fingerprint

        async with self._building:
            if self._agent is None:
                seen = await anyio.to_thread.run_sync(fingerprint, self.setup.cwd)
                made = await anyio.to_thread.run_sync(
                    self._parts.maker.system_prompt, abandon_on_cancel=True
                )
                self._agent = self._parts.maker.make_agent(made, self.save)
                self._instructions = self._instructions or seen  # what the prompt was made from
        return self._agent

    def start(self, background: anyio.abc.TaskGroup | None) -> None:
        """Its MCP servers start (once; ``ready`` waits for them)."""
        if background is not None:
            self._parts.mcp.start(background)

    async def prepare(self) -> None:
        """What its first prompt needs that takes a while, made in a worker thread: a stored
        conversation decoded, git's view of the workspace."""
        await anyio.to_thread.run_sync(self._parts.maker.prepare)

    async def warm_up(self, background: anyio.abc.TaskGroup | None) -> None:
        """The model's client made (the SDK loaded once) and its connection opened in
        ``background``, the MCP servers' tools listed, the agent built."""
        await anyio.to_thread.run_sync(self.model.warm_up)
        if background is not None:  # the handshakes done while the user types
            background.start_soon(self.connect_ahead)
        await self._parts.mcp.ready()
        await self.ready()

    async def warm_up_model(self) -> None:
        """A model switched to: its client made (its SDK loaded, once) and its connection
        opened, while the user types. A failure is left to the first request to say."""
        model = self.model
        try:
            await anyio.to_thread.run_sync(model.warm_up)
        except Exception:  # noqa: BLE001 - the request that follows says what is wrong
            return
        if model is self.model:  # not switched again meanwhile
            await self.connect_ahead()

    async def connect_ahead(self) -> None:
        """The model's connection opened while the user types, unless a prompt came first (its
        request opens one)."""
        if not self.turn_lock.locked():
            await self.model.connect_ahead()

    async def idle(self) -> None:
        """Returns once no prompt of this session runs or waits (at once when none does)."""
        async with self.turn_lock:
            pass

    async def reload(self) -> None:
        """The system prompt made again from the workspace as it is now (``/reload``)."""
        from agent_core.context.files import fingerprint

        agent = await self.ready()
        agent.replace_system_prompt(
            *await anyio.to_thread.run_sync(self._parts.maker.system_prompt)
        )
        self._instructions = await anyio.to_thread.run_sync(fingerprint, self.setup.cwd)

    # -- choices --------------------------------------------------------------------------

    def switch_model(
        self, spec: str, model: Model, credentials: tuple[ProviderSettings, ...]
    ) -> None:
        choice = self._parts.choice
        choice.spec, choice.model, choice.credentials = spec, model, credentials
        if self._agent is not None:
            self._agent.model = model

    def set_thought_level(self, level: str) -> None:
        self._parts.choice.thought_level = level
        if self._agent is not None:
            self._agent.reasoning_effort = self._parts.choice.reasoning_effort

    async def set_mode(self, mode: Mode) -> None:
        """The approval mode; the editor is told (``mode_changed``), as when the agent
        switches it."""
        await self._parts.permissions.set_mode(mode)

    async def mode_changed(self, mode: Mode) -> None:
        """The mode changed (the user or the agent): stored, and the editor's options follow."""
        from acp_server.bridge.modes import to_option_updates
        from agent_core.models.choices import listable

        await self._store.update(self.id, mode=mode)
        lists, settings = self._lists, self._config.settings
        listed = lists.known(listable(settings, [self.model_spec])) if lists else None
        for update in to_option_updates(self.options(listed), mode_changed=True):
            await self.show(update)

    # -- the updates ----------------------------------------------------------------------

    async def show(self, update: dict[str, Any]) -> None:
        """Part of the conversation: sent, and kept for replay."""
        await self._parts.stream.show(update)

    async def tell(self, update: dict[str, Any]) -> None:
        """Sent now, never replayed (a title, a usage line, the picker's options)."""
        await self._parts.stream.tell(update)

    async def report(self, event: Event) -> None:
        """An event (a notice, a tool call's progress) as the editor shows it; kept for
        replay."""
        await self._parts.stream.report(event)

    def keep(self, update: dict[str, Any]) -> None:
        """Into the stored transcript with the next save, without sending it again."""
        self._parts.transcript.feed(update)

    def owns(self, session_id: str) -> bool:
        """Whether ``session_id`` is one of this session's subagents (at any depth)."""
        return session_id in self._parts.stream.children.parents

    def stop_subagent(self, session_id: str) -> None:
        """Stop that subagent's work (``session/cancel`` on its id); its parent's turn goes on,
        told that the user stopped it. Nothing, once it ended."""
        self._parts.stream.children.stop(session_id)

    async def tell_about_history(self) -> None:
        """What the session's user has not yet heard about the session store: an unreadable
        history moved aside, this session not being saved (``ResilientStore.notices``)."""
        for notice in self._store.notices(self.id):
            await self.report(notice)

    # -- a prompt -------------------------------------------------------------------------

    async def read_links(self, uris: Sequence[str]) -> dict[str, Linked]:
        """What the prompt's ``file://`` links hold, read as Heron reads a file the workspace
        supplies (inside the session's roots, regular, capped, never blocking)."""
        from acp_server.bridge.linked import read_linked

        return {uri: await read_linked(uri, self.setup.roots) for uri in uris}

    async def prompt(
        self,
        prompt: Prompt,
        ticket: int,
        hooks: TurnHooks,
        rewind: tuple[str, RestoreMode] | None = None,
    ) -> StopReason:
        """One prompt: queued behind the running one, then a slash command or a turn, saved
        however it ends. ``ticket``: the cancels counted when the prompt arrived; one since
        ends it ``cancelled``. ``rewind``: a rewind first (an edited prompt sent again), which
        raises ``RewindError`` when it cannot be done (the prompt does not run)."""
        async with self.turn_lock:
            if self.cancellations != ticket:  # cancelled or closed while queued: no stale work
                return "cancelled"
            self.ticket = ticket  # what each step watched for a cancel compares with
            await self._wait_until_ready()
            if self.cancellations != ticket:  # cancelled while it got ready
                return "cancelled"
            if rewind is not None:
                await self.rewind_now(*rewind)
            hooks.refresh_model(self)
            await self._follow_mcp_servers()
            await self._follow_tool_switches()
            self._parts.transcript.user_prompt(prompt.blocks, prompt.message_id)
            await self.tell_about_changed_instructions()
            await self._tell_about_prompt(prompt)
            title = self._title(prompt.blocks)
            stop = await self._run_and_save(prompt, title, hooks)
        if title is not None:
            update = {"sessionUpdate": "session_info_update", "title": title}
            await self.tell({**update, "updatedAt": to_iso_time(time.time())})
        await self.tell_about_history()  # a save that failed: the session goes on unsaved
        return stop

    async def _run_and_save(
        self, prompt: Prompt, title: str | None, hooks: TurnHooks
    ) -> StopReason:
        writes = self._parts.writes
        failure: Exception | None = None
        stop: StopReason = "end_turn"
        async with writes.running():  # the answer waits for the writes, not the turn
            if title is not None:  # written while the model works
                await writes.submit(lambda: self._store.update(self.id, title=title))
            try:
                stop = await self._prompt_or_command(prompt, hooks)
            except Exception as exc:  # noqa: BLE001 - raised below, outside the writer's task group
                failure = exc
            finally:
                with anyio.CancelScope(shield=True):  # what happened is saved, however it ended
                    await self.agent.save()
                    rest = self._parts.transcript.drain(finished=True)
                    await writes.submit(lambda: self._store.append(self.id, (), rest))
        if failure is not None:
            raise failure
        return stop

    async def _prompt_or_command(self, prompt: Prompt, hooks: TurnHooks) -> StopReason:
        """A slash command is answered, becomes the prompt, or compacts; anything else is a
        turn."""
        from agent_core.messages import TextPart

        parts = prompt.parts
        text = parts[0].text.strip() if len(parts) == 1 and isinstance(parts[0], TextPart) else ""
        if text.startswith("/"):
            outcome: CommandOutcome = None
            try:
                with anyio.CancelScope() as scope:  # a command waits on git too: /undo, /restore
                    self.watch(scope)
                    outcome = await hooks.run_command(self, text)
            finally:
                self.turn_scope = None
            if scope.cancelled_caught:
                return "cancelled"
            if outcome is None:
                return "end_turn"
            if isinstance(outcome, Compact):
                return await self._turn(parts, prompt.message_id, compact=True)
            parts = (TextPart(outcome),)
        return await self._turn(parts, prompt.message_id)

    async def _turn(
        self, parts: tuple[UserPart, ...], message_id: str, *, compact: bool = False
    ) -> StopReason:
        from acp_server.turn import after_turn, before_turn, stream_turn

        hooks = None if compact else self._parts.hooks
        if hooks is not None:
            hooked = await before_turn(self, hooks, parts)
            if hooked is None:  # refused by a hook, or cancelled meanwhile
                return "cancelled" if self.cancellations != self.ticket else "end_turn"
            parts = hooked
        if not compact:
            self._parts.checkpoints.begin_turn(_text_of(parts), message_id)
        stop = await stream_turn(self, self._parts.checkpoints, parts, message_id, compact)
        if hooks is not None and stop != "cancelled":
            await after_turn(self, hooks, stop)
        return stop

    async def _follow_tool_switches(self) -> None:
        """Tools switched on or off since the system prompt was made (the mode, ``[tools]`` in
        config.toml): its guidance is made again; the tool list follows by itself."""
        if self._parts.maker.tools_changed():
            made = await anyio.to_thread.run_sync(self._parts.maker.system_prompt)
            self.agent.replace_system_prompt(*made)

    def follow_config(self) -> None:
        """``config.toml`` was read again: the MCP servers it names now that the session lacks
        start at once (their tools reach the next prompt). A file being edited is left alone."""
        if self._config.problem is None:
            self._parts.mcp.follow(self._config.settings.mcp_servers)

    async def _follow_mcp_servers(self) -> None:
        """Before a prompt: servers added to config.toml since (``follow_config``) waited for,
        as the first prompt waits, and their tools given to the agent."""
        self.follow_config()
        mcp = self._parts.mcp
        if mcp.generation != self._mcp_generation:
            self._mcp_generation = mcp.generation
            await self._wait_until_ready()
            self._parts.maker.renew_tools()

    async def _wait_until_ready(self) -> None:
        """The first turn's tools include every MCP server that starts within its connect
        timeout, and its agent is built; ``session/cancel`` stops the wait at once."""
        with anyio.CancelScope() as waiting:
            self.watch(waiting)
            await self._parts.mcp.ready()
            await self.ready()
        self.turn_scope = None

    async def tell_about_changed_instructions(self) -> None:
        """The prompt prefix is frozen for the session; say so when the project instructions
        change (before a prompt, or when a watcher sees it: told once either way)."""
        from agent_core.context.files import changed_files, fingerprint

        now = await anyio.to_thread.run_sync(fingerprint, self.setup.cwd)
        before, self._instructions = self._instructions, now
        if before is None or not (changed := changed_files(before, now)):
            return
        await self.tell_about_changed_files(changed)

    async def tell_about_changed_files(self, paths: Sequence[Path]) -> None:
        """Files the system prompt carries changed (the instructions, the memory): it stays as
        it is, byte for byte, until ``/reload``."""
        from agent_core.events import NoticeRaised

        names = ", ".join(p.name for p in paths)
        about = "It applies from the next session, or now after /reload."
        await self.report(NoticeRaised("info", f"{names} changed", about))

    async def _tell_about_prompt(self, prompt: Prompt) -> None:
        """What of the prompt the model will not see: a linked file left out, an image."""
        from agent_core.events import NoticeRaised
        from agent_core.messages import ImagePart

        for problem in prompt.problems:
            await self.report(NoticeRaised("warning", "Mention left out", problem))
        model = self.model
        if model.accepts_images or not any(isinstance(p, ImagePart) for p in prompt.parts):
            return
        about = f"{model.name} cannot see images; it is told one was attached. A model that can "
        about += "see them gets the image (/model)."
        await self.report(NoticeRaised("warning", "Image left out", about))

    def _title(self, blocks: list[dict[str, Any]]) -> str | None:
        """The title its first prompt gives a session (its first line); None once it has one."""
        if self._titled:
            return None
        self._titled = True
        text = next(
            (b["text"] for b in blocks if b.get("type") == "text" and b["text"].strip()), ""
        )
        return " ".join(text.strip().splitlines()[0].split())[:TITLE_CHARS] if text else "Untitled"

    async def save(self, messages: Sequence[Message], replace: bool) -> None:
        """The agent's completed messages, with what the editor saw meanwhile, written behind."""
        items = self._parts.transcript.drain()
        await self._parts.writes.submit(
            lambda: self._store.append(self.id, messages, items, replace=replace)
        )

    # -- rewind ---------------------------------------------------------------------------

    def refuse_while_busy(self) -> None:
        """A rewind waits for no turn: raises ``RewindError`` while a prompt runs or waits."""
        from acp_server.rewind import RewindError

        if self.turn_lock.locked():
            raise RewindError("A prompt is running: rewind once it has ended, or cancel it first.")

    async def rewind(self, message_id: str, restore: RestoreMode) -> Rewound:
        """The conversation, the files or both back to before a prompt (``acp_server.rewind``);
        refused while a prompt runs or waits."""
        self.refuse_while_busy()
        async with self.turn_lock:
            return await self.rewind_now(message_id, restore)

    async def rewind_now(self, message_id: str, restore: RestoreMode) -> Rewound:
        """The same, by what holds the turn already (``/rewind``, an edited prompt)."""
        from acp_server.rewind import Rewind

        return await Rewind(self, self._parts, self._store).run(message_id, restore)

    async def prompts(self) -> list[PromptMark]:
        """The conversation's prompts, oldest first, as stored."""
        from acp_server.rewind import prompts_of

        return await prompts_of(self._store, self.id)

    async def export(self, form: str, path: str | None) -> str:
        """The session as stored so far written to ``path`` in the workspace (None: a name of
        its own at the root), once the approval gate lets it (``/export``); the reply."""
        from acp_server.export import EditorExport

        return await EditorExport(self, self._parts, self._store).run(form, path)

    # -- checkpoints ----------------------------------------------------------------------

    async def list_checkpoints(self) -> str:
        from acp_server.restore import list_checkpoints

        return await list_checkpoints(self._parts.checkpoints)

    async def restore(self, number: int | None) -> str:
        """The workspace back to before turn ``number`` (None: the last), once the user says
        so; the reply says what happened."""
        from acp_server.restore import Restore

        parts = self._parts
        restore = Restore(parts.checkpoints, parts.workspace, parts.permissions.approver, self)
        restored = await restore.run(number)
        if restored.note is not None:
            (await self.ready()).remember(restored.note)
        return restored.text

    async def copy_checkpoints(self, session_id: str) -> None:
        """A fork's: the checkpoints of the session it came from (none, if they cannot be)."""
        from agent_core.checkpoints.session import CheckpointError

        with contextlib.suppress(CheckpointError):  # a fork without them is still a fork
            await self._parts.checkpoints.copy_from(session_id)

    # -- the end --------------------------------------------------------------------------

    def cancel(self) -> None:
        """Stop the running turn and every prompt queued behind it."""
        self.cancellations += 1
        if self.turn_scope is not None:
            self.turn_scope.cancel()

    def watch(self, scope: anyio.CancelScope) -> None:
        """``scope`` is what ``cancel`` stops now. A cancel that came since the running prompt
        arrived, between two watched steps, stops it at once: no cancel is lost in a gap."""
        self.turn_scope = scope
        if self.cancellations != self.ticket:
            scope.cancel()

    async def close(self) -> None:
        """Stop what the session started: its commands, its MCP servers, its sandbox's leftovers,
        the language servers no other session uses."""
        await self._parts.runner.close()
        await self._parts.mcp.close()
        await self._parts.release()
        self._parts.sandbox.close()

    async def end(self) -> None:
        """Cancel the running turn, wait for it to answer and save, then ``close``."""
        self.cancel()
        async with self.turn_lock:
            await self.close()


def _text_of(parts: tuple[UserPart, ...]) -> str:
    from agent_core.messages import TextPart

    return " ".join(p.text for p in parts if isinstance(p, TextPart))
