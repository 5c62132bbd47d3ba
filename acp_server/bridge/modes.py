"""A session's options as ACP sees them: the approval mode (as session modes and as a config
option, kept in sync), the model, and the thought level where the model takes one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from agent_core.config import Settings
from agent_core.modes import MODE_NAMES

if TYPE_CHECKING:  # the model choices load with the first session, not before `initialize`
    from agent_core.models.choices import ModelOption

MODE_CONFIG_ID = "mode"
MODEL_CONFIG_ID = "model"
THOUGHT_CONFIG_ID = "thought_level"
THOUGHT_LEVELS = {"default": "Model default", "low": "Low", "medium": "Medium", "high": "High"}


class SessionOptions(Struct, frozen=True):
    mode: str
    model: str
    models: tuple[ModelOption, ...]
    thought_level: str | None  # None: the model takes no thought level
    sandbox: str = ""  # whether commands run in a sandbox, as the mode list says it


def session_options(
    mode: str,
    model: str,
    thought_level: str,
    settings: Settings,
    sandbox: str = "",
    listed: Mapping[str, tuple[str, ...]] | None = None,
) -> SessionOptions:
    """``listed``: what each provider's models endpoint offers, as known now."""
    from agent_core.models.choices import model_options, takes_thought_level

    thought = thought_level if takes_thought_level(model, settings) else None
    models = model_options(settings, model, listed)
    return SessionOptions(mode, model, models, thought, sandbox)


def to_model_choice(option: ModelOption) -> dict[str, Any]:
    """One entry of the model picker: the configured ones and the current one say so."""
    about = {
        "current": "In use",
        "configured": "Configured",
        "listed": f"Offered by {option.spec.partition(':')[0]}",
        "suggested": "Suggested",
    }
    return {"value": option.spec, "name": option.spec, "description": about[option.origin]}


def to_modes(options: SessionOptions) -> dict[str, Any]:
    available = [
        {"id": mode, "name": name, "description": about}
        for mode, name, about in _described(options)
    ]
    return {"currentModeId": options.mode, "availableModes": available}


def _described(options: SessionOptions) -> list[tuple[str, str, str]]:
    """Each mode's id, name and description; the description says whether there is a sandbox."""
    sandbox = f" ({options.sandbox})" if options.sandbox else ""
    return [(mode, name, f"{about}{sandbox}") for mode, (name, about) in MODE_NAMES.items()]


def to_config_options(options: SessionOptions) -> list[dict[str, Any]]:
    modes = [
        {"value": mode, "name": name, "description": about}
        for mode, name, about in _described(options)
    ]
    config = [
        _select(
            MODE_CONFIG_ID,
            "Approval mode",
            "What the agent may do without asking",
            "mode",
            options.mode,
            modes,
        ),
        _select(
            MODEL_CONFIG_ID,
            "Model",
            "The model that answers",
            "model",
            options.model,
            [to_model_choice(m) for m in options.models],
        ),
    ]
    if options.thought_level is not None:
        levels = [{"value": v, "name": n} for v, n in THOUGHT_LEVELS.items()]
        config.append(
            _select(
                THOUGHT_CONFIG_ID,
                "Thinking",
                "How much the model reasons before answering",
                "thought_level",
                options.thought_level,
                levels,
            )
        )
    return config


def to_option_updates(options: SessionOptions, *, mode_changed: bool) -> list[dict[str, Any]]:
    """What to tell the editor after a change: the mode (if it changed) and every option."""
    updates: list[dict[str, Any]] = []
    if mode_changed:
        updates.append({"sessionUpdate": "current_mode_update", "currentModeId": options.mode})
    updates.append(
        {"sessionUpdate": "config_option_update", "configOptions": to_config_options(options)}
    )
    return updates


def _select(
    option_id: str,
    name: str,
    description: str,
    category: str,
    current: str,
    values: list[dict[str, Any]],
) -> dict[str, Any]:
    return {
        "id": option_id,
        "name": name,
        "description": description,
        "category": category,
        "type": "select",
        "currentValue": current,
        "options": values,
    }
