"""``[retry]`` and ``[models."<provider>:<model>"]`` in config.toml: read by
``agent_core.config``, obeyed by the model adapters, the registry and the catalogue. Its own
module because config is on the start-up path and must not load the adapters.

``ConfiguredModels`` is what the registry, the picker and ``heron models`` read of the settings:
``agent_core.config.Settings`` has it, and this package does not import config.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from agent_core.config_values import int_or_none, number, table
from agent_core.errors import ConfigError
from agent_core.providers import ProviderSettings


class ModelSettings(NamedTuple):
    """``[models."<provider>:<model>"]``: what to assume about one model."""

    context_window: int | None = None
    max_output_tokens: int | None = None
    images: bool | None = None
    input_price: float | None = None  # USD per million tokens
    output_price: float | None = None
    cache_read_price: float | None = None
    cache_write_price: float | None = None

    def fields(self) -> dict[str, Any]:
        return self._asdict()


class RetrySettings(NamedTuple):
    """``[retry]``: how transient provider faults are retried before falling back."""

    max_attempts: int = 4
    base_delay: float = 1.0
    max_delay: float = 30.0


class ConfiguredModels(Protocol):
    """The models the settings name, the providers that reach them, and how they are retried."""

    @property
    def model(self) -> str | None: ...  # "<provider>:<model>"
    @property
    def fallback_models(self) -> tuple[str, ...]: ...
    @property
    def models(self) -> Mapping[str, ModelSettings]: ...
    @property
    def retry(self) -> RetrySettings: ...
    @property
    def providers(self) -> Mapping[str, ProviderSettings]: ...
    @property
    def config_file(self) -> Path: ...
    def provider(self, name: str) -> ProviderSettings: ...


def read_retry(section: dict[str, Any]) -> RetrySettings:
    defaults = RetrySettings()
    return RetrySettings(
        max_attempts=int(number(section, "max_attempts", defaults.max_attempts, minimum=1)),
        base_delay=number(section, "base_delay", defaults.base_delay, minimum=0),
        max_delay=number(section, "max_delay", defaults.max_delay, minimum=0),
    )


def read_models(section: dict[str, Any]) -> dict[str, ModelSettings]:
    """``[models]``: one ``[models."<provider>:<model>"]`` table per model."""
    return {name: _model(table(section, name, f'[models."{name}"]'), name) for name in section}


_FIGURES = (
    "context_window",
    "max_output_tokens",
    "input_price",
    "output_price",
    "cache_read_price",
    "cache_write_price",
)


def _model(section: dict[str, Any], name: str) -> ModelSettings:
    images = section.get("images")
    if images is not None and not isinstance(images, bool):
        raise ConfigError(f'config.toml: [models."{name}"] images must be true or false')
    numbers = {key: number(section, key, None, minimum=0) for key in _FIGURES}
    return ModelSettings(
        context_window=int_or_none(numbers["context_window"]),
        max_output_tokens=int_or_none(numbers["max_output_tokens"]),
        images=images,
        input_price=numbers["input_price"],
        output_price=numbers["output_price"],
        cache_read_price=numbers["cache_read_price"],
        cache_write_price=numbers["cache_write_price"],
    )
