"""Model providers by name: ``HERON_MODEL=<provider>:<model>`` picks one. An explicit table."""

from __future__ import annotations

from collections.abc import Callable

from agent_core.config import Settings
from agent_core.errors import ModelConfigError
from agent_core.models.base import Model
from agent_core.models.scripted import ScriptedModel

ModelFactory = Callable[[str, Settings], Model]

PROVIDERS: dict[str, ModelFactory] = {
    "scripted": lambda name, _settings: ScriptedModel.load(name),
}


def create_model(spec: str | None, settings: Settings) -> Model:
    """The model named by ``spec`` (``<provider>:<model>``); raises ``ModelConfigError``."""
    if not spec:
        raise ModelConfigError(
            "no model configured: set HERON_MODEL=<provider>:<model> "
            f"(providers: {', '.join(sorted(PROVIDERS))}), e.g. HERON_MODEL=scripted:echo"
        )
    provider, _, name = spec.partition(":")
    factory = PROVIDERS.get(provider)
    if factory is None or not name:
        raise ModelConfigError(
            f"cannot use model {spec!r}: write <provider>:<model> with a provider among "
            f"{', '.join(sorted(PROVIDERS))}"
        )
    return factory(name, settings)
