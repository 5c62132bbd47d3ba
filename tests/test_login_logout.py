"""Logging in and out while `heron acp` runs: a key saved by `heron login` is used without a
restart, `logout` takes it out again, and the file keeps everything else. Real subprocesses
(`heron acp`, `heron login`), real files, the fake provider for the model's requests."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.config import ConfigWatch
from agent_core.config_keys import remove_api_keys, store_api_key
from agent_core.errors import ConfigError
from tests.support.fake_llm import Failure, FakeLLM, RecordedRequest, Reply, Text
from tests.support.logins import heron_login, new_session, prompt
from tests.support.raw import RawAgent

CONFIG = """# my Heron settings
model = "anthropic:claude-test"   # the one I use
reasoning_effort = "low"

[providers.anthropic]  # work account
base_url = "{url}"
api_key = "sk-ant-old-0123456789"

[retry]
max_attempts = 1
"""


def key_of(request: RecordedRequest) -> str:
    """The key the provider SDK sent (the Anthropic SDK sends it as a bearer token)."""
    return request.headers["authorization"].removeprefix("Bearer ")


def test_a_key_saved_by_heron_login_is_used_without_a_restart(
    user: dict[str, str], workspace: Path
) -> None:
    with FakeLLM() as fake, RawAgent({**user, "ANTHROPIC_BASE_URL": fake.url}) as agent:
        result = agent.initialize({"auth": {"terminal": True}})
        assert result["agentCapabilities"]["auth"] == {"logout": {}}
        assert agent.request("authenticate", {"methodId": "api-key"})["error"]["code"] == -32000
        refused = new_session(agent, workspace)["error"]
        assert refused["code"] == -32000 and "no restart needed" in refused["message"]

        heron_login(user, "anthropic", "sk-ant-from-login-0123456789")  # the editor runs it

        agent.initialize({"auth": {"terminal": True}})  # what a client does after terminal auth
        assert agent.request("authenticate", {"methodId": "heron-login"})["result"] == {}
        session_id = new_session(agent, workspace)["result"]["sessionId"]
        fake.enqueue(Reply((Text("hello from the provider"),)))
        assert prompt(agent, session_id, "hi")["result"]["stopReason"] == "end_turn"
    [request] = fake.requests
    assert key_of(request) == "sk-ant-from-login-0123456789"
    assert request.body["model"] == "claude-sonnet-4-5"  # the model `heron login` chose


def test_logout_takes_the_saved_key_out_and_sessions_ask_for_it_again(
    user: dict[str, str], workspace: Path
) -> None:
    config = Path(user["HERON_HOME"]) / "config.toml"
    with FakeLLM() as fake:
        config.write_text(CONFIG.format(url=fake.url))
        with RawAgent(user) as agent:
            agent.initialize()
            session_id = new_session(agent, workspace)["result"]["sessionId"]
            fake.enqueue(Reply((Text("one"),)))
            assert "result" in prompt(agent, session_id, "first")

            assert agent.request("logout", {})["result"] == {}
            assert config.read_text() == CONFIG.format(url=fake.url).replace(
                'api_key = "sk-ant-old-0123456789"\n', ""
            )  # the key went; comments, order and every other setting stayed
            assert new_session(agent, workspace)["error"]["code"] == -32000
            logged_out = prompt(agent, session_id, "second")["error"]  # the open session too
            assert logged_out["code"] == -32000 and "heron login" in logged_out["message"]
            assert agent.request("logout", {})["result"] == {}  # nothing left: still fine

            heron_login(user, "anthropic", "sk-ant-new-0123456789")
            fake.enqueue(Reply((Text("three"),)))
            assert "result" in prompt(agent, session_id, "third")  # the same session, no restart
            assert "result" in new_session(agent, workspace)
    assert [key_of(r) for r in fake.requests] == [
        "sk-ant-old-0123456789",
        "sk-ant-new-0123456789",
    ]


def test_a_session_whose_key_was_refused_works_after_heron_login(
    user: dict[str, str], workspace: Path
) -> None:
    config = Path(user["HERON_HOME"]) / "config.toml"
    with FakeLLM() as fake:
        config.write_text(CONFIG.format(url=fake.url))
        with RawAgent(user) as agent:
            agent.initialize()
            session_id = new_session(agent, workspace)["result"]["sessionId"]
            fake.enqueue(Failure(401, message="invalid x-api-key"))
            refused = prompt(agent, session_id, "first")
            assert "invalid x-api-key" in str(refused)

            heron_login(user, "anthropic", "sk-ant-fixed-0123456789")
            fake.enqueue(Reply((Text("works now"),)))
            assert prompt(agent, session_id, "again")["result"]["stopReason"] == "end_turn"
    assert [key_of(r) for r in fake.requests] == [
        "sk-ant-old-0123456789",
        "sk-ant-fixed-0123456789",
    ]


def test_logout_ignores_a_key_from_the_environment_and_names_it(
    user: dict[str, str], workspace: Path
) -> None:
    config = Path(user["HERON_HOME"]) / "config.toml"
    config.write_text(CONFIG.format(url="http://127.0.0.1:9"))
    keys = {"ANTHROPIC_API_KEY": "sk-ant-env-0123456789", "OPENAI_API_KEY": "sk-unused-0123"}
    with RawAgent({**user, **keys}) as agent:  # the model is Anthropic's; OpenAI's key goes too
        agent.initialize()
        ignored = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"]  # a restart brings them back
        result = agent.request("logout", {})["result"]
        assert result == {"_meta": {"heron": {"environmentKeysIgnored": ignored}}}
        assert "api_key" not in config.read_text()  # the saved key went too
        refused = new_session(agent, workspace)["error"]  # the environment's key is ignored
        assert refused["code"] == -32000 and "ANTHROPIC_API_KEY" in refused["message"]


def test_logout_leaves_a_file_it_cannot_edit_safely_alone(heron_home: Path) -> None:
    config = heron_home / "config.toml"
    inline = '[providers]\nanthropic = { api_key = "sk-ant-inline" }\n'
    config.write_text(inline)
    with pytest.raises(ConfigError, match="by hand"):
        remove_api_keys(heron_home)
    assert config.read_text() == inline
    config.write_text("model = [broken\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        remove_api_keys(heron_home)
    config.unlink()
    assert remove_api_keys(heron_home) == ()


def test_keys_of_every_provider_go_and_other_tables_stay(heron_home: Path) -> None:
    store_api_key(heron_home, "openai", "sk-openai-1")
    store_api_key(heron_home, "anthropic", "sk-ant-1")
    config = heron_home / "config.toml"
    config.write_text(config.read_text() + '\n[mcp_servers.x]\ncommand = "x"\napi_key = "kept"\n')
    assert remove_api_keys(heron_home) == ("openai", "anthropic")
    text = config.read_text()
    assert "sk-" not in text and 'api_key = "kept"' in text  # not a provider's: not Heron's key
    assert text.startswith('model = "openai:gpt-5"\n[providers.openai]\n')


def test_the_watch_reads_the_file_again_only_when_it_changed(
    heron_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HERON_HOME", str(heron_home))
    for name in ("HERON_MODEL", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    watch = ConfigWatch()
    assert watch.settings.model is None and not watch.refresh()
    store_api_key(heron_home, "anthropic", "sk-ant-1")
    assert watch.refresh() and watch.settings.has_credentials()
    first = watch.settings
    assert not watch.refresh() and watch.settings is first  # unchanged: one stat, same object
    (heron_home / "config.toml").write_text("model = [broken\n")
    assert watch.refresh() and watch.problem is not None and watch.settings.model is None
    (heron_home / "config.toml").write_text('model = "anthropic:claude-test"\n')  # fixed
    assert watch.refresh() and watch.problem is None and not watch.settings.has_credentials()
