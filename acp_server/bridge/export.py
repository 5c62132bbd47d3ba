"""A stored session as the text of an export (``heron export``, ``/export``).

The translations are the core's (``agent_core.sessions.export``); what they need of the
editor's updates is read here: the last plan and the last usage line of the transcript, for
the end of the Markdown. A ShareGPT export lists Heron's built-in tools (their descriptions and
JSON schemas) in its system turn, and by name any other tool the session called (an MCP
server's, ``delegate``): the toolset a session had is not stored. It is written as one line,
so that exports joined together are a JSON Lines data set.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from acp_server.bridge.transcript import last_of, last_usage
from acp_server.bridge.updates import from_plan_update, from_usage_update

if TYPE_CHECKING:
    from agent_core.sessions.store import StoredSession

FORMATS = {"markdown": ".md", "jsonl": ".jsonl", "sharegpt": ".json"}  # format -> file suffix


def export_text(stored: StoredSession, form: str) -> str:
    """``stored`` in ``form`` (one of ``FORMATS``), ending with a line end; a lone surrogate
    (half an emoji a provider's stream cut) is a "?", so that the text can be written."""
    from agent_core.sessions import export

    match form:
        case "markdown":
            plan = from_plan_update(last_of(stored.transcript, "plan"))
            usage = from_usage_update(last_usage(stored.transcript))
            text = export.to_markdown(stored, plan=plan, usage=usage)
        case "jsonl":
            text = "".join(f"{line}\n" for line in export.to_jsonl(stored))
        case "sharegpt":
            record = export.to_sharegpt(stored, tools=heron_tools())
            text = json.dumps(record, ensure_ascii=False) + "\n"
        case _:
            raise ValueError(f"unknown export format {form!r}: use one of {', '.join(FORMATS)}")
    return text.encode(errors="replace").decode()


def heron_tools() -> list[dict[str, Any]]:
    """Heron's built-in tools as the model is given them: name, description, JSON schema."""
    from agent_core.loop.execution import tool_specs
    from agent_core.tools import default_toolset

    return [
        {"name": s.name, "description": s.description, "parameters": s.parameters}
        for s in tool_specs(default_toolset())
    ]


def format_of(path: str) -> str | None:
    """The format a file name asks for by its suffix, or None."""
    return next((form for form, suffix in FORMATS.items() if path.endswith(suffix)), None)


def default_name(session_id: str, form: str) -> str:
    """Where ``/export`` writes when it is not told: ``heron-session-<short id>.<suffix>``."""
    return f"heron-session-{session_id[:8]}{FORMATS[form]}"
