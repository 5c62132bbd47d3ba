"""Slash commands in prompts: Heron's own are answered here; templates and skills become the
prompt (a skill's: its instructions, then the arguments as the request).

A command the agent does not know goes to the model as the text it is; one naming a skill that
was left out is answered with why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acp_server.handlers.state import ServerState, Session
from acp_server.jsonrpc.errors import RpcError
from agent_core.context.commands import INIT_PROMPT, SlashCommand, available_commands, expand, parse

if TYPE_CHECKING:
    from agent_core.skills.catalog import Catalog


def commands_for(
    state: ServerState, session: Session, catalog: Catalog | None = None
) -> dict[str, SlashCommand]:
    catalog = skills_for(state, session) if catalog is None else catalog
    return available_commands(session.setup.cwd, state.settings.home, catalog.skills)


def skills_for(state: ServerState, session: Session) -> Catalog:
    """The skills on disk now, from the folders the settings name."""
    from agent_core.skills.catalog import skills_on_disk

    return skills_on_disk(state.settings.skills, session.setup.cwd, state.settings.home)


def to_commands_update(commands: dict[str, SlashCommand]) -> dict[str, Any]:
    listed: list[dict[str, Any]] = []
    for command in commands.values():
        entry: dict[str, Any] = {"name": command.name, "description": command.description}
        if command.hint:
            entry["input"] = {"hint": command.hint}
        listed.append(entry)
    return {"sessionUpdate": "available_commands_update", "availableCommands": listed}


async def announce_commands(state: ServerState, session: Session) -> None:
    """``available_commands_update`` (after a session response: JetBrains waits otherwise)."""
    await state.notify_update(session.id, to_commands_update(commands_for(state, session)))


async def run_command(state: ServerState, session: Session, text: str) -> str | None:
    """Handle ``text`` if it is one of Heron's commands (None: done, nothing to ask the model);
    otherwise the prompt to send: a template's expansion, or ``text`` unchanged."""
    parsed = parse(text)
    if parsed is None:
        return text
    name, arguments = parsed
    catalog = skills_for(state, session)
    command = commands_for(state, session, catalog).get(name)
    blocked = [f for f in catalog.left_out if f.path.parent.name == name]
    if command is None and not blocked:
        return text
    if command is None:
        left_out = blocked[0]
        reply = f"/{name} was not run: the skill was left out, {left_out.path}: {left_out.reason}."
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
        lines = [
            f"- `/{c.name}`{f' {c.hint}' if c.hint else ''}: {c.description}"
            for c in commands_for(state, session).values()
        ]
        return "Commands:\n" + "\n".join(lines)
    if name == "memory":
        return _memory(state)
    if name == "cost":
        meter, window = session.agent.meter, session.parts.choice.model.context_window
        cost = f"${meter.cost:.4f}" if meter.cost is not None else "unknown (no price configured)"
        return f"Context: {meter.in_context:,} of {window:,} tokens. Cost so far: {cost}."
    if name in ("undo", "restore", "checkpoints"):
        from acp_server.handlers import checkpoints

        if name == "checkpoints":
            return await checkpoints.list_checkpoints(session)
        return await checkpoints.restore(session, arguments, undo=name == "undo")
    if name == "reload":
        from agent_core.context.files import fingerprint

        session.agent.replace_system_prompt(*session.parts.system_prompt())
        session.instructions = fingerprint(session.setup.cwd)
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
