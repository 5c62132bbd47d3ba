"""The approval modes as ACP sees them: session modes and a ``mode`` config option, in sync."""

from __future__ import annotations

from typing import Any

from agent_core.modes import MODE_NAMES

MODE_CONFIG_ID = "mode"


def to_modes(current: str) -> dict[str, Any]:
    available = [
        {"id": mode, "name": name, "description": about}
        for mode, (name, about) in MODE_NAMES.items()
    ]
    return {"currentModeId": current, "availableModes": available}


def to_config_options(current: str) -> list[dict[str, Any]]:
    options = [
        {"value": mode, "name": name, "description": about}
        for mode, (name, about) in MODE_NAMES.items()
    ]
    return [
        {
            "id": MODE_CONFIG_ID,
            "name": "Approval mode",
            "description": "What the agent may do without asking",
            "category": "mode",
            "type": "select",
            "currentValue": current,
            "options": options,
        }
    ]


def to_mode_updates(current: str) -> list[dict[str, Any]]:
    """Both views of a mode change, for clients that follow either."""
    return [
        {"sessionUpdate": "current_mode_update", "currentModeId": current},
        {"sessionUpdate": "config_option_update", "configOptions": to_config_options(current)},
    ]
