"""Slash commands in prompts: Heron's own are answered here; templates and skills become the
prompt (a skill's: its instructions, then the arguments as the request).

A command the agent does not know goes to the model as the text it is; one naming a skill or a
template that was left out (``safety/safe_open.py`` would not read it, or it failed a screen)
is answered with why. The folders are read in a worker thread, each time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio

from acp_server.handlers.state import ServerState, Session
from acp_server.jsonrpc.errors import RpcError
from agent_core.context.commands import (
    INIT_PROMPT,
    Commands,
    LeftOut,
    SlashCommand,
    expand,
    find_commands,
    parse,
)

if TYPE_CHECKING:
    from agent_core.events import NoticeRaised
    from agent_core.skills.catalog import Catalog


async def on_disk(state: ServerState, session: Session) -> tuple[Catalog, Commands]:
    """The skills and commands on disk now, from the folders the settings name: listed and
    read in a worker thread (``safety/safe_open.py``), so a slow disk or a FIFO where a
    template should be never holds up the event loop."""
    from agent_core.skills.catalog import skills_on_disk

    settings, cwd = state.settings, session.setup.cwd

    def find() -> tuple[Catalog, Commands]:
        catalog = skills_on_disk(settings.skills, cwd, settings.home)
        return catalog, find_commands(cwd, settings.home, catalog.skills)

    return await anyio.to_thread.run_sync(find)


def to_commands_update(commands: dict[str, SlashCommand]) -> dict[str, Any]:
    listed: list[dict[str, Any]] = []
    for command in commands.values():
        entry: dict[str, Any] = {"name": command.name, "description": command.description}
        if command.hint:
            entry["input"] = {"hint": command.hint}
        listed.append(entry)
    return {"sessionUpdate": "available_commands_update", "availableCommands": listed}


async def announce_commands(state: ServerState, session: Session) -> None:
    """``available_commands_update`` (after a session response: JetBrains waits otherwise),
    then a notice per template left out."""
    _, found = await on_disk(state, session)
    await state.notify_update(session.id, to_commands_update(found.commands))
    if not found.left_out:
        return
    from acp_server.bridge.updates import to_session_update

    notices = state.client.can("session", "notices")
    for left_out in found.left_out:
        notice = to_session_update(to_notice(left_out), notices=notices)
        if notice is not None:
            await state.notify_update(session.id, notice)


def to_notice(left_out: LeftOut) -> NoticeRaised:
    from agent_core.events import NoticeRaised

    path = left_out.path
    title = f"Ignored the command /{path.stem}" if path.suffix == ".md" else "Ignored commands"
    return NoticeRaised("warning", title, f"{path}: {left_out.reason}")


async def run_command(state: ServerState, session: Session, text: str) -> str | None:
    """Handle ``text`` if it is one of Heron's commands (None: done, nothing to ask the model);
    otherwise the prompt to send: a template's expansion, or ``text`` unchanged."""
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
    elif name == "init":
        return INIT_PROMPT + (f"\n\nAlso: {arguments}" if arguments else "")
    else:
        reply = await _builtin(state, session, name, arguments)
    await session.parts.send(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": f"command-{name}-{id(reply)}",
            "content": {"type": "text", "text": reply},
        }
    )
    return None


async def _builtin(state: ServerState, session: Session, name: str, arguments: str) -> str:
    from acp_server.handlers.modes import mode_value, switch_model

    if name == "help":
        _, found = await on_disk(state, session)
        lines = [
            f"- `/{c.name}`{f' {c.hint}' if c.hint else ''}: {c.description}"
            for c in found.commands.values()
        ]
        return "Commands:\n" + "\n".join(lines)
    if name == "memory":
        return _memory(state)
    if name == "cost":
        meter, window = (await session.ready()).meter, session.parts.choice.model.context_window
        cost = f"${meter.cost:.4f}" if meter.cost is not None else "unknown (no price configured)"
        return f"Context: {meter.in_context:,} of {window:,} tokens. Cost so far: {cost}."
    if name in ("undo", "restore", "checkpoints"):
        from acp_server.handlers import checkpoints

        if name == "checkpoints":
            return await checkpoints.list_checkpoints(session)
        return await checkpoints.restore(session, arguments, undo=name == "undo")
    if name == "reload":
        from agent_core.context.files import fingerprint

        agent = await session.ready()
        agent.replace_system_prompt(*await anyio.to_thread.run_sync(session.parts.system_prompt))
        session.instructions = await anyio.to_thread.run_sync(fingerprint, session.setup.cwd)
        return "Reloaded the project instructions; they apply from the next prompt."
    try:
        if name == "mode":
            await session.parts.permissions.set_mode(mode_value(arguments))
            return f"The approval mode is now {arguments}."
        if name == "model":
            await switch_model(state, session, arguments)
            return f"Switched to {arguments}."
    except RpcError as exc:
        return exc.message
    return f"/{name} is not available here."


def _memory(state: ServerState) -> str:
    from agent_core.memory import FILES, memory_of

    memory = memory_of(state.settings)
    if memory is None:
        return "Memory is turned off ([memory] enabled = false in config.toml)."
    parts = [
        f"**{kind}** ({memory.path(kind)}):\n{memory.read(kind).strip() or '(empty)'}"
        for kind in FILES
    ]
    return "\n\n".join(parts) + "\n\nEdit these files directly to change what is kept."
