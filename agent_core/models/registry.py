"""Model providers by name: ``HERON_MODEL=<provider>:<model>`` picks one. An explicit table.

Every model is wrapped in ``ResilientModel`` with the configured fallbacks, so retries, backoff
and fallback behave the same whatever the provider.
"""

from __future__ import annotations

from collections.abc import Callable

from agent_core.config import ProviderSettings, Settings
from agent_core.errors import ModelConfigError
from agent_core.models.base import Model
from agent_core.models.catalog import describe
from agent_core.models.resilient import ResilientModel
from agent_core.models.scripted import ScriptedModel

ModelFactory = Callable[[str, Settings], Model]
KEY_VARIABLE = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}


# Adapters load with the first session that uses them.


def _anthropic(model_id: str, settings: Settings) -> Model:
    from agent_core.models.anthropic import AnthropicModel

    info = describe("anthropic", model_id, settings.models.get(f"anthropic:{model_id}"))
    return AnthropicModel(model_id, _keyed(settings, "anthropic"), info)


def _openai(model_id: str, settings: Settings) -> Model:
    from agent_core.models.openai import OpenAIResponsesModel

    info = describe("openai", model_id, settings.models.get(f"openai:{model_id}"))
    return OpenAIResponsesModel(model_id, _keyed(settings, "openai"), info)


def _openai_chat(model_id: str, settings: Settings) -> Model:
    from agent_core.models.openai_chat import OpenAIChatModel

    provider = settings.provider("openai-chat")
    if not provider.api_key and not provider.base_url:
        raise ModelConfigError(
            "openai-chat needs OPENAI_BASE_URL (your server's /v1 URL) or OPENAI_API_KEY"
        )
    info = describe("openai-chat", model_id, settings.models.get(f"openai-chat:{model_id}"))
    return OpenAIChatModel(model_id, provider, info)


def _scripted(script: str, settings: Settings) -> Model:
    return ScriptedModel.load(script)


PROVIDERS: dict[str, ModelFactory] = {
    "anthropic": _anthropic,
    "openai": _openai,
    "openai-chat": _openai_chat,
    "scripted": _scripted,
}


def create_model(spec: str | None, settings: Settings) -> Model:
    """The configured model with its fallbacks; raises ``ModelConfigError`` with the fix."""
    if not spec:
        raise ModelConfigError(
            "no model configured: set HERON_MODEL=<provider>:<model> "
            f"(providers: {', '.join(PROVIDERS)}), e.g. HERON_MODEL=anthropic:claude-sonnet-4-5"
        )
    chain = [_single(spec, settings)]
    chain += [_single(fallback, settings) for fallback in settings.fallback_models]
    return ResilientModel(chain, settings.retry)


def _single(spec: str, settings: Settings) -> Model:
    provider, _, name = spec.partition(":")
    factory = PROVIDERS.get(provider)
    if factory is None or not name:
        raise ModelConfigError(
            f"cannot use model {spec!r}: write <provider>:<model> with a provider among "
            f"{', '.join(PROVIDERS)}"
        )
    return factory(name, settings)


def _keyed(settings: Settings, provider: str) -> ProviderSettings:
    keyed = settings.provider(provider)
    if not keyed.api_key:
        variable = KEY_VARIABLE[provider]
        raise ModelConfigError(
            f"{provider} needs an API key: set {variable} in the agent's environment "
            f"or api_key under [providers.{provider}] in {settings.config_file}"
        )
    return keyed
