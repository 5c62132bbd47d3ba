"""The common endpoints a user names in one line: ``[providers.openrouter]`` (or just
``HERON_MODEL=openrouter:<model>`` with ``OPENROUTER_API_KEY`` set). One readable table.

Each preset gives a provider's wire API, its endpoint and the variable its key is usually kept
in; anything under ``[providers.<name>]`` overrides it. Local servers need no key. Azure OpenAI
has no fixed endpoint: its v1 OpenAI-compatible URL is ``https://<resource>.openai.azure.com/
openai/v1`` (no ``api-version`` needed), given as ``base_url`` or derived from
``AZURE_OPENAI_ENDPOINT``.
"""

from __future__ import annotations

from typing import NamedTuple


class Preset(NamedTuple):
    api: str  # "anthropic" | "openai" | "openai-chat"
    base_url: str | None  # None: the user's own (``url_variable`` or ``base_url``)
    key_variable: str | None  # None: a local server, which needs no key
    headers: tuple[tuple[str, str], ...] = ()
    url_variable: str | None = None  # the variable the endpoint is usually kept in
    url_suffix: str = ""  # added to ``url_variable``'s value when it lacks it

    def url_from(self, value: str) -> str:
        url = value.rstrip("/")
        return url if url.endswith(self.url_suffix) else url + self.url_suffix


ATTRIBUTION = (("HTTP-Referer", "https://github.com/heron-agent/heron"), ("X-Title", "Heron"))

PRESETS: dict[str, Preset] = {
    "openrouter": Preset(
        "openai-chat", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", ATTRIBUTION
    ),
    "ollama": Preset("openai-chat", "http://localhost:11434/v1", None),
    "lmstudio": Preset("openai-chat", "http://localhost:1234/v1", None),
    "vllm": Preset("openai-chat", "http://localhost:8000/v1", None),
    "llamacpp": Preset("openai-chat", "http://localhost:8080/v1", None),
    "azure-openai": Preset(
        "openai-chat",
        None,
        "AZURE_OPENAI_API_KEY",
        url_variable="AZURE_OPENAI_ENDPOINT",
        url_suffix="/openai/v1",
    ),
    "gemini": Preset(
        "openai-chat", "https://generativelanguage.googleapis.com/v1beta/openai", "GEMINI_API_KEY"
    ),
    "deepseek": Preset("openai-chat", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"),
    "groq": Preset("openai-chat", "https://api.groq.com/openai/v1", "GROQ_API_KEY"),
    "mistral": Preset("openai-chat", "https://api.mistral.ai/v1", "MISTRAL_API_KEY"),
}
