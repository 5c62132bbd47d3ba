"""Slash commands in prompts: Heron's own are answered here; templates and skills become the
prompt (a skill's: its instructions, then the arguments as the request).

A command the agent does not know goes to the model as the text it is; one naming a skill or a
template that was left out (``safety/safe_open.py`` would not read it, or it failed a screen)
is answered with why. The folders are read in a worker thread, each time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, NamedTuple

import anyio

from acp_server.handlers.command_list import commands_on_disk, to_commands_update
from acp_server.handlers.state import ServerState
from acp_server.jsonrpc.errors import RpcError
from acp_server.session import COMPACT, CommandOutcome, Session
from agent_core.context.commands import (
    INIT_PROMPT,
    Commands,
    LeftOut,
    expand,
    parse,
)

if TYPE_CHECKING:
    from agent_core.events import NoticeRaised
    from agent_core.skills.catalog import Catalog


async def on_disk(state: ServerState, session: Session) -> tuple[Catalog, Commands]:
    """The skills and commands on disk now, found in a worker thread, so a slow disk never
    holds up the event loop."""
    settings, cwd = state.settings, session.setup.cwd
    return await anyio.to_thread.run_sync(commands_on_disk, settings, cwd)


async def announce_commands(
    state: ServerState, session: Session, *, if_changed: bool = False
) -> None:
    """``available_commands_update`` (after a session response: JetBrains waits otherwise),
    then a notice per template left out. ``if_changed``: only if the list differs from the one
    told last (a session told none is told nothing)."""
    _, found = await on_disk(state, session)
    update = to_commands_update(found.commands)
    if if_changed and update == (session.commands_told or update):
        return
    session.commands_told = update
    await session.tell(update)
    if not found.left_out:
        return
    from acp_server.bridge.updates import to_session_update

    notices = state.client.can("session", "notices")
    for left_out in found.left_out:
        notice = to_session_update(to_notice(left_out), notices=notices)
        if notice is not None:
            await session.tell(notice)


def to_notice(left_out: LeftOut) -> NoticeRaised:
    from agent_core.events import NoticeRaised

    path = left_out.path
    title = f"Ignored the command /{path.stem}" if path.suffix == ".md" else "Ignored commands"
    return NoticeRaised("warning", title, f"{path}: {left_out.reason}")


async def run_command(state: ServerState, session: Session, text: str) -> CommandOutcome:
    """Handle ``text`` if it is one of Heron's commands (None: answered, nothing to ask the
    model; ``COMPACT``: compact now); otherwise the prompt to send: a template's expansion, or
    ``text`` unchanged."""
    parsed = parse(text)
    if parsed is None:
        return text
    name, arguments = parsed
    catalog, found = await on_disk(state, session)
    command = found.commands.get(name)
    blocked = [("skill", f.path, f.reason) for f in catalog.left_out if f.skill == name]
    blocked += [
        ("template", f.path, f.reason) for f in found.left_out if f.path.name == f"{name}.md"
    ]
    if command is None and not blocked:
        return text
    if command is None:
        what, path, reason = blocked[-1]  # a template's wins, as a working one would
        reply = f"/{name} was not run: the {what} was left out, {path}: {reason}."
    elif command.skill is not None:
        from agent_core.skills.listing import command_prompt

        return command_prompt(command.skill, arguments, state.settings.skills.max_chars)
    elif command.template is not None:
        from agent_core.safety.injection import screen

        if (problem := screen(command.template)) is None:
            return expand(command, arguments)
        reply = f"/{name} was not run: its template (a file in a commands folder) {problem}."
    else:
        answer = await BUILTINS[name](Call(state, session, arguments, found))
        if not isinstance(answer, _Reply):
            return answer
        reply = answer.text
    await session.show(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": f"command-{name}-{id(reply)}",
            "content": {"type": "text", "text": reply},
        }
    )
    return None


class Call(NamedTuple):
    """A built-in command as typed: where, in which session, with what after its name."""

    state: ServerState
    session: Session
    arguments: str
    found: Commands  # the commands on disk as the call found them


class _Reply(NamedTuple):
    text: str  # what the user is answered


Outcome = _Reply | CommandOutcome  # an answer, or what the session does next
Run = Callable[[Call], Awaitable[Outcome]]


async def _compact(call: Call) -> Outcome:
    return COMPACT


async def _init(call: Call) -> Outcome:
    return INIT_PROMPT + (f"\n\nAlso: {call.arguments}" if call.arguments else "")


async def _help(call: Call) -> Outcome:
    lines = [
        f"- `/{c.name}`{f' {c.hint}' if c.hint else ''}: {c.description}"
        for c in call.found.commands.values()
    ]
    return _Reply("Commands:\n" + "\n".join(lines))


async def _memory(call: Call) -> Outcome:
    from agent_core.memory.notes import FILES, memory_of

    memory = memory_of(call.state.settings)
    if memory is None:
        return _Reply("Memory is turned off ([memory] enabled = false in config.toml).")
    kept = [
        f"**{kind}** ({memory.path(kind)}):\n{memory.read(kind).strip() or '(empty)'}"
        for kind in FILES
    ]
    return _Reply("\n\n".join(kept) + "\n\nEdit these files directly to change what is kept.")


async def _cost(call: Call) -> Outcome:
    meter, window = (await call.session.ready()).meter, call.session.model.context_window
    cost = f"${meter.cost:.4f}" if meter.cost is not None else "unknown (no price configured)"
    return _Reply(f"Context: {meter.in_context:,} of {window:,} tokens. Cost so far: {cost}.")


async def _checkpoints(call: Call) -> Outcome:
    return _Reply(await call.session.list_checkpoints())


async def _undo(call: Call) -> Outcome:
    return _Reply(await call.session.restore(None))


async def _restore(call: Call) -> Outcome:
    if not call.arguments.strip().isdigit():
        return _Reply("Usage: /restore <n>, with n from /checkpoints.")
    return _Reply(await call.session.restore(int(call.arguments)))


async def _rewind(call: Call) -> Outcome:
    from acp_server.rewind import RESTORE_MODES, RestoreMode, RewindError, listing, told

    prompts = await call.session.prompts()
    words = call.arguments.split()
    if not words:
        return _Reply(listing(prompts))
    number = int(words[0]) if words[0].isdigit() else 0
    restore: RestoreMode | None = "both"
    if words[1:]:
        restore = next((m for m in RESTORE_MODES if words[1:] == [m]), None)
    if not 1 <= number <= len(prompts) or restore is None:
        return _Reply("Usage: /rewind <n> [conversation | files | both], with n from /rewind.")
    try:
        rewound = await call.session.rewind_now(prompts[number - 1].message_id, restore)
    except RewindError as exc:
        return _Reply(str(exc))
    return _Reply(told(number, prompts[number - 1], restore, rewound))


async def _export(call: Call) -> Outcome:
    from acp_server.bridge.export import FORMATS, format_of

    first, _, rest = call.arguments.partition(" ")
    form = first if first in FORMATS else None
    path = rest.strip() if form else call.arguments.strip()
    if form is None and path and not ("." in path or "/" in path):
        return _Reply(f"Usage: /export [{' | '.join(FORMATS)}] [path]; {path!r} is neither.")
    return _Reply(await call.session.export(form or format_of(path) or "markdown", path or None))


async def _reload(call: Call) -> Outcome:
    await call.session.reload()
    return _Reply("Reloaded the project instructions; they apply from the next prompt.")


async def _mode(call: Call) -> Outcome:
    from acp_server.handlers.modes import mode_value

    try:
        await call.session.set_mode(mode_value(call.arguments))
    except RpcError as exc:
        return _Reply(exc.message)
    return _Reply(f"The approval mode is now {call.arguments}.")


async def _model(call: Call) -> Outcome:
    from acp_server.handlers.modes import switch_model

    try:
        await switch_model(call.state, call.session, call.arguments)
    except RpcError as exc:
        return _Reply(exc.message)
    return _Reply(f"Switched to {call.arguments}.")


# What each of Heron's own commands does; their names and descriptions, which every front end
# lists, are ``agent_core.context.commands.BUILTINS`` (the same keys: a test holds them so).
BUILTINS: dict[str, Run] = {
    "compact": _compact,
    "init": _init,
    "model": _model,
    "mode": _mode,
    "reload": _reload,
    "cost": _cost,
    "memory": _memory,
    "undo": _undo,
    "checkpoints": _checkpoints,
    "restore": _restore,
    "rewind": _rewind,
    "export": _export,
    "help": _help,
}
