"""Named providers and presets in settings, the model picker's entries, the model lists' cache:
the pure parts, without a server."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.config import Settings, load_settings, secrets_to_redact
from agent_core.errors import ConfigError, ModelConfigError
from agent_core.models.choices import listable, model_options, takes_thought_level
from agent_core.models.listing import ModelLists, parse_models, request_headers
from agent_core.models.registry import create_model
from agent_core.presets import PRESETS
from agent_core.providers import ProviderSettings


def settings(home: Path, toml: str = "", **env: str) -> Settings:
    (home / "config.toml").write_text(toml)
    return load_settings({"HERON_HOME": str(home), **env})


def test_a_named_provider_with_its_own_key_variable_and_headers(heron_home: Path) -> None:
    s = settings(
        heron_home,
        '[providers.work]\napi = "openai-chat"\nbase_url = "http://llm:8000/v1"\n'
        'api_key_env = "WORK_KEY"\nheaders = { "X-Team" = "tools" }\nmodels = ["qwen3"]\n',
        WORK_KEY="sekret",
        OPENAI_API_KEY="not-this-one",
    )
    work = s.provider("work")
    assert (work.api, work.base_url, work.api_key) == (
        "openai-chat",
        "http://llm:8000/v1",
        "sekret",
    )
    assert work.headers == (("X-Team", "tools"),) and work.models == ("qwen3",)
    assert secrets_to_redact(s)["WORK_KEY"] == "sekret"
    assert create_model("work:qwen3", s).name == "work:qwen3"


def test_the_built_in_names_keep_their_variables(heron_home: Path) -> None:
    s = settings(
        heron_home,
        '[providers.openai-chat]\nbase_url = "http://file/v1"\n',
        OPENAI_API_KEY="k",
        OPENAI_BASE_URL="http://env/v1",
    )
    assert s.provider("openai-chat").base_url == "http://env/v1"  # the environment wins
    assert s.provider("openai").api_key == "k" and s.provider("openai-chat").api_key == "k"
    assert s.provider("anthropic").api == "anthropic" and s.provider("scripted").api == "scripted"


def test_presets_need_one_line_or_none(heron_home: Path) -> None:
    s = settings(heron_home, '[providers.router]\npreset = "openrouter"\n', OPENROUTER_API_KEY="or")
    router = s.provider("router")
    assert router.base_url == "https://openrouter.ai/api/v1" and router.api_key == "or"
    assert dict(router.headers)["X-Title"] == "Heron"
    assert s.provider("openrouter").api_key == "or"  # no section: the key variable is enough
    ollama = s.provider("ollama")  # a local server: no section, no key
    assert (ollama.base_url, ollama.local, ollama.reachable()) == (
        "http://localhost:11434/v1",
        True,
        True,
    )
    assert not s.provider("groq").reachable()  # no GROQ_API_KEY
    with pytest.raises(ModelConfigError, match="GROQ_API_KEY"):
        create_model("groq:llama-3.3-70b", s)
    for preset in PRESETS.values():
        assert preset.api in ("anthropic", "openai", "openai-chat")


def test_azure_openai_takes_its_resource_endpoint(heron_home: Path) -> None:
    s = settings(
        heron_home,
        "",
        AZURE_OPENAI_API_KEY="az",
        AZURE_OPENAI_ENDPOINT="https://res.openai.azure.com/",
    )
    assert s.provider("azure-openai").base_url == "https://res.openai.azure.com/openai/v1"
    s = settings(heron_home, "[providers.azure-openai]\n")
    with pytest.raises(ModelConfigError, match="base_url"):
        create_model("azure-openai:gpt-4.1", s)


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[providers.x]\nbase_url = 'http://a'\n", "needs api = one of"),
        ("[providers.x]\napi = 'grpc'\n", "api must be one of"),
        ("[providers.x]\npreset = 'nope'\n", "preset must be one of"),
        ("[providers.x]\napi = 'openai'\napi_key = 'a'\napi_key_env = 'B'\n", "not both"),
        ("[providers.x]\napi = 'openai'\nheaders = { A = 1 }\n", "headers values must be strings"),
        ("[providers.x]\napi = 'openai'\nbase = 'http://a'\n", "unknown keys: base"),
        ("[providers.x]\napi = 'openai'\nmodels = 'gpt'\n", "models must be a list"),
        ("[providers.anthropic]\napi = 'openai'\n", "built-in provider; it takes no api"),
        ("[providers.'a:b']\napi = 'openai'\n", "a provider name is"),
        ("[providers]\nx = 1\n", r"\[providers.x\] must be a table"),
    ],
)
def test_bad_provider_settings_say_what_to_fix(heron_home: Path, toml: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        settings(heron_home, toml)


def test_cloud_platforms_read_their_own_variables(heron_home: Path) -> None:
    s = settings(
        heron_home,
        '[providers.vertex]\nproject = "file-project"\n',
        AWS_REGION="eu-west-1",
        AWS_PROFILE="work",
        CLOUD_ML_REGION="us-east5",
    )
    bedrock, vertex = s.provider("bedrock"), s.provider("vertex")
    assert (bedrock.region, bedrock.profile, bedrock.reachable()) == ("eu-west-1", "work", True)
    assert (vertex.region, vertex.project) == ("us-east5", "file-project")
    assert takes_thought_level("bedrock:anthropic.claude-x", s)


def test_a_vertex_access_token_needs_a_project(heron_home: Path) -> None:
    from agent_core.models.platforms import platform_client

    s = settings(heron_home, '[providers.vertex]\napi_key = "tok"\n', CLOUD_ML_REGION="us-east5")
    create_model("vertex:claude-x", s).warm_up()  # quiet: the first request says what is wrong
    with pytest.raises(ModelConfigError, match="GOOGLE_CLOUD_PROJECT"):
        platform_client(s.provider("vertex"))


def test_the_picker_puts_the_current_model_first_and_marks_the_configured(
    heron_home: Path,
) -> None:
    s = settings(
        heron_home,
        'model = "work:a"\nfallback_models = ["anthropic:claude-haiku-4-5"]\n'
        '[providers.work]\napi = "openai-chat"\nbase_url = "http://w/v1"\nmodels = ["b"]\n',
        ANTHROPIC_API_KEY="k",
    )
    listed = {"work": ("a", "c"), "anthropic": ("claude-opus-4-1",)}
    entries = [(o.spec, o.origin) for o in model_options(s, "work:c", listed)]
    assert entries == [
        ("work:c", "current"),
        ("work:a", "configured"),
        ("anthropic:claude-haiku-4-5", "configured"),
        ("work:b", "configured"),
        ("anthropic:claude-opus-4-1", "listed"),
    ]
    current_configured = model_options(s, "work:a", {})
    assert (current_configured[0].spec, current_configured[0].origin) == ("work:a", "configured")
    assert set(listable(s)) == {"work", "anthropic"}


def test_models_endpoints_in_both_formats() -> None:
    openai = {"object": "list", "data": [{"id": "gpt-5"}, {"id": "text-embedding-3-small"}]}
    assert parse_models(openai) == ("gpt-5",)
    anthropic = {"data": [{"type": "model", "id": "claude-opus-4-1"}], "has_more": False}
    assert parse_models(anthropic) == ("claude-opus-4-1",)
    assert parse_models({"models": [{"name": "qwen3:8b"}]}) == ("qwen3:8b",)  # Ollama's own
    assert parse_models(["nonsense"]) == ()
    keyed = request_headers(ProviderSettings("k", api="anthropic"))
    assert keyed["x-api-key"] == "k" and "anthropic-version" in keyed


@pytest.mark.anyio
async def test_model_lists_are_cached_with_a_time_limit(tmp_path: Path) -> None:
    asked: list[str] = []
    now = [1000.0]

    async def fetch(provider: ProviderSettings) -> tuple[str, ...]:
        asked.append(provider.name)
        if provider.name == "down":
            raise OSError("connection refused")
        return (f"{provider.name}-1",)

    providers = {
        "up": ProviderSettings(base_url="http://up/v1", name="up", api="openai-chat"),
        "down": ProviderSettings(base_url="http://down/v1", name="down", api="openai-chat"),
    }
    cache = tmp_path / "models.json"
    lists = ModelLists(cache, max_age=60, fetch=fetch, clock=lambda: now[0])
    assert lists.known(providers) == {}
    assert await lists.refresh(providers)
    assert lists.known(providers) == {"up": ("up-1",)} and sorted(asked) == ["down", "up"]
    assert not await lists.refresh(providers) and len(asked) == 2  # fresh; down waits
    again = ModelLists(cache, max_age=60, fetch=fetch, clock=lambda: now[0])
    assert await again.refresh({"up": providers["up"]}) and len(asked) == 2  # from the file
    now[0] += 61
    assert not await again.refresh({"up": providers["up"]}) and asked[-1] == "up"  # too old
    moved = {"up": ProviderSettings(base_url="http://elsewhere/v1", name="up", api="openai")}
    assert again.known(moved) == {}  # another endpoint: not its list
