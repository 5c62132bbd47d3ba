"""Test doubles of the Model port (``agent_core.models.base``): what they share beyond ``stream``."""

from __future__ import annotations


class UnpricedModel:
    """A test model's ``warm_up`` (nothing to load), ``connect_ahead`` (no server) and ``cost``
    (no price known)."""

    def warm_up(self) -> None:
        return None

    async def connect_ahead(self) -> None:
        return None

    def cost(
        self, input_tokens: int, output_tokens: int, cache_read: int = 0, cache_write: int = 0
    ) -> float | None:
        return None
