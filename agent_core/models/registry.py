"""Model providers by name: ``HERON_MODEL=<provider>:<model>`` picks one. An explicit table.

Every model is wrapped in ``ResilientModel`` with the configured fallbacks, so retries, backoff
and fallback behave the same whatever the provider.
"""

from __future__ import annotations

from collections.abc import Callable

from agent_core.errors import ModelConfigError
from agent_core.models.base import Model
from agent_core.models.catalog import ModelInfo, describe
from agent_core.models.resilient import ResilientModel
from agent_core.models.settings import ConfiguredModels
from agent_core.presets import PRESETS
from agent_core.providers import ProviderSettings

ModelFactory = Callable[[str, ProviderSettings, ConfiguredModels], Model]


# Adapters load with the first session that uses them.


def _anthropic(model_id: str, provider: ProviderSettings, settings: ConfiguredModels) -> Model:
    from agent_core.models.anthropic import AnthropicModel

    if provider.api == "anthropic":
        _keyed(provider)
    return AnthropicModel(model_id, provider, _info("anthropic", model_id, provider, settings))


def _openai(model_id: str, provider: ProviderSettings, settings: ConfiguredModels) -> Model:
    from agent_core.models.openai import OpenAIResponsesModel

    if not provider.local:
        _keyed(provider)
    info = _info("openai", model_id, provider, settings)
    return OpenAIResponsesModel(model_id, provider, info)


def _openai_chat(model_id: str, provider: ProviderSettings, settings: ConfiguredModels) -> Model:
    from agent_core.models.openai_chat import OpenAIChatModel

    if provider.name == "openai-chat" and not provider.api_key and not provider.base_url:
        raise ModelConfigError(
            "openai-chat needs OPENAI_BASE_URL (your server's /v1 URL) or OPENAI_API_KEY"
        )
    if provider.name != "openai-chat":
        if not provider.base_url:
            raise ModelConfigError(
                f"{provider.name} needs base_url (its server's /v1 URL) under "
                f"[providers.{provider.name}] in {settings.config_file}"
            )
        if provider.key_variable:  # a preset's or the user's key variable: the key is needed
            _keyed(provider)
    info = _info("openai-chat", model_id, provider, settings)
    return OpenAIChatModel(model_id, provider, info)


def _scripted(script: str, provider: ProviderSettings, settings: ConfiguredModels) -> Model:
    from agent_core.models.scripted import ScriptedModel

    return ScriptedModel.load(script)


API: dict[str, ModelFactory] = {  # a provider's wire API -> how its models are built
    "anthropic": _anthropic,
    "bedrock": _anthropic,
    "vertex": _anthropic,
    "openai": _openai,
    "openai-chat": _openai_chat,
    "scripted": _scripted,
}


SDKS: dict[str, str] = {  # a provider's wire API -> the SDK its adapter loads (the slow part)
    "anthropic": "anthropic",
    "bedrock": "anthropic",
    "vertex": "anthropic",
    "openai": "openai",
    "openai-chat": "openai",
}


def sdk_of(spec: str | None, settings: ConfiguredModels) -> str | None:
    """The SDK module the model ``spec`` names loads, or None (none, or no such provider: the
    session says what is wrong)."""
    return SDKS.get(settings.provider((spec or "").partition(":")[0]).api)


def create_model(spec: str | None, settings: ConfiguredModels) -> Model:
    """The configured model with its fallbacks; raises ``ModelConfigError`` with the fix."""
    if not spec:
        raise ModelConfigError(
            "no model configured: set HERON_MODEL=<provider>:<model> "
            f"(providers: {', '.join(provider_names(settings))}), "
            "e.g. HERON_MODEL=anthropic:claude-sonnet-4-5"
        )
    chain = [single_model(spec, settings)]
    chain += [single_model(fallback, settings) for fallback in settings.fallback_models]
    return ResilientModel(chain, settings.retry)


def provider_names(settings: ConfiguredModels) -> list[str]:
    """Every name a model spec may start with: the configured providers, then the presets."""
    return list(dict.fromkeys([*settings.providers, *PRESETS]))


def single_model(spec: str, settings: ConfiguredModels) -> Model:
    """One model, without fallbacks or retries (``heron doctor`` checks each alone)."""
    name, _, model_id = spec.partition(":")
    provider = settings.provider(name)
    factory = API.get(provider.api)
    if factory is None or not model_id:
        raise ModelConfigError(
            f"cannot use model {spec!r}: write <provider>:<model> with a provider among "
            f"{', '.join(provider_names(settings))}, or one of your own under "
            f"[providers.<name>] in {settings.config_file}"
        )
    return factory(model_id, provider, settings)


def _info(
    api: str, model_id: str, provider: ProviderSettings, settings: ConfiguredModels
) -> ModelInfo:
    """What is known of the model: by its API's catalogue, overridden by
    ``[models."<provider>:<model>"]`` under the provider's own name."""
    return describe(api, model_id, settings.models.get(f"{provider.name}:{model_id}"))


def _keyed(provider: ProviderSettings) -> None:
    if not provider.api_key:
        raise ModelConfigError(provider.missing_key())
