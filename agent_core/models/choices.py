"""The models a session may switch to, as the model picker lists them. Pure.

The current model comes first, then the configured ones (``model``, ``fallback_models``,
``[models."<spec>"]``, each provider's ``models``), then what each provider's models endpoint
offers (``listing.ModelLists``), then suggestions for keyed providers that list nothing yet.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from msgspec import Struct

from agent_core.models.catalog import SUGGESTED
from agent_core.models.settings import ConfiguredModels
from agent_core.providers import APIS, BUILT_IN, ProviderSettings

LISTED_APIS = ("anthropic", "openai", "openai-chat")  # the ones with a models endpoint


class ModelOption(Struct, frozen=True):
    spec: str  # "<provider>:<model>"
    origin: str  # "current" | "configured" | "listed" | "suggested"


def model_options(
    settings: ConfiguredModels, current: str, listed: Mapping[str, tuple[str, ...]] | None = None
) -> tuple[ModelOption, ...]:
    """The picker's entries, each once, in order: current, configured, listed, suggested."""
    configured = [settings.model, *settings.fallback_models, *settings.models]
    for name, provider in settings.providers.items():
        configured += [f"{name}:{model}" for model in provider.models]
    entries = [ModelOption(current, "current")]
    entries += [ModelOption(spec, "configured") for spec in configured if spec and ":" in spec]
    for name, models in (listed or {}).items():
        entries += [ModelOption(f"{name}:{model}", "listed") for model in models]
    for name, models in SUGGESTED.items():
        if settings.provider(name).api_key and not (listed or {}).get(name):
            entries += [ModelOption(f"{name}:{model}", "suggested") for model in models]
    seen: dict[str, ModelOption] = {}
    for entry in entries:
        seen.setdefault(entry.spec, entry)
    if current in (o.spec for o in entries[1:] if o.origin == "configured"):
        seen[current] = ModelOption(current, "configured")  # still first, and marked
    return tuple(seen.values())


def listable(settings: ConfiguredModels, in_use: Iterable[str] = ()) -> dict[str, ProviderSettings]:
    """The providers whose models endpoint the picker lists: those named in config.toml or by
    a preset's key, the built-ins with a key (``openai-chat`` when it is not OpenAI itself), and
    any a model in use (``in_use``: specs) or configured names."""
    used = {spec.partition(":")[0] for spec in (*in_use, settings.model or "")}
    used |= {spec.partition(":")[0] for spec in settings.fallback_models}
    chosen: dict[str, ProviderSettings] = {}
    for name, provider in settings.providers.items():
        if provider.api not in LISTED_APIS:
            continue
        if name in used or name not in BUILT_IN or _keyed_built_in(name, settings):
            chosen[name] = provider
    for name in used - set(chosen):  # a preset used without a section: a local server
        provider = settings.provider(name)
        if provider.api in LISTED_APIS and provider.reachable():
            chosen[name] = provider
    return chosen


def _keyed_built_in(name: str, settings: ConfiguredModels) -> bool:
    provider = settings.provider(name)
    if name == "openai-chat":  # the same endpoint and key as openai, unless openai has none
        return bool(provider.base_url) and not settings.provider("openai").api_key
    return bool(provider.api_key)


def takes_thought_level(spec: str, settings: ConfiguredModels) -> bool:
    # Every API Heron speaks takes a thought level; "scripted" does not.
    return settings.provider(spec.partition(":")[0]).api in APIS
