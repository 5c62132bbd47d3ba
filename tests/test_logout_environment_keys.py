"""`logout` when the key comes from the agent's environment (what editors do: Zed's `env`,
JetBrains' `acp.json`): Heron cannot unset the variable, so it ignores it until the user logs
in again (`authenticate`, or a key `heron login` saves in config.toml) or restarts the agent,
and says so in the answer's `_meta` and the log. Real `heron acp` and `heron login`
subprocesses over stdio, the fake provider for the model's requests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_core.config import ConfigWatch, secrets_to_redact
from agent_core.config_keys import store_api_key
from tests.support.fake_llm import FakeLLM, RecordedRequest, Reply, Text
from tests.support.logins import heron_login, new_session, prompt
from tests.support.raw import RawAgent

ENV_KEY = "sk-ant-env-0123456789"


def editor_env(user: dict[str, str], fake: FakeLLM) -> dict[str, str]:
    """What the editor starts Heron with: the model and the key in its environment."""
    return {
        **user,
        "HERON_MODEL": "anthropic:claude-test",
        "ANTHROPIC_API_KEY": ENV_KEY,
        "ANTHROPIC_BASE_URL": fake.url,
    }


def key_of(request: RecordedRequest) -> str:
    return request.headers.get("x-api-key") or request.headers["authorization"].split()[-1]


def ignoring(*names: str) -> dict[str, Any]:
    return {"_meta": {"heron": {"environmentKeysIgnored": list(names)}}}


def test_logout_ignores_the_environment_key_until_authenticate(
    user: dict[str, str], workspace: Path, heron_home: Path
) -> None:
    with FakeLLM() as fake, RawAgent(editor_env(user, fake)) as agent:
        agent.initialize()
        session_id = new_session(agent, workspace)["result"]["sessionId"]
        fake.enqueue(Reply((Text("one"),)))
        assert prompt(agent, session_id, "first")["result"]["stopReason"] == "end_turn"

        assert agent.request("logout", {})["result"] == ignoring("ANTHROPIC_API_KEY")
        refused = new_session(agent, workspace)["error"]  # as with no key at all
        assert refused["code"] == -32000 and refused["message"].startswith("Authentication")
        assert "You logged out: Heron ignores ANTHROPIC_API_KEY" in refused["message"]
        logged_out = prompt(agent, session_id, "second")["error"]  # the open session too
        assert logged_out["code"] == -32000 and "ANTHROPIC_API_KEY" in logged_out["message"]
        again = agent.request("logout", {})["result"]  # logging out twice: the same answer
        assert again == ignoring("ANTHROPIC_API_KEY")

        assert agent.request("authenticate", {"methodId": "api-key"})["result"] == {}
        fake.enqueue(Reply((Text("two"),)), Reply((Text("three"),)))
        assert prompt(agent, session_id, "third")["result"]["stopReason"] == "end_turn"
        other = new_session(agent, workspace)["result"]["sessionId"]
        assert prompt(agent, other, "fourth")["result"]["stopReason"] == "end_turn"
        assert agent.close() == 0
    assert [key_of(r) for r in fake.requests] == [ENV_KEY] * 3  # none while logged out
    log = (heron_home / "logs" / "heron.log").read_text()
    assert (
        "logout: the key in ANTHROPIC_API_KEY, set in the agent's environment, is ignored until "
        "the user logs in again (authenticate, or heron login); a restart of the agent uses it "
        "again"
    ) in log
    assert "authenticate: logged in again" in log
    assert ENV_KEY not in log


def test_a_key_heron_login_saves_logs_in_again(
    user: dict[str, str], workspace: Path, heron_home: Path
) -> None:
    config = heron_home / "config.toml"
    with FakeLLM() as fake:
        config.write_text(
            'model = "work:qwen-coder"\n\n[providers.work]  # the team\'s server\n'
            f'api = "openai-chat"\nbase_url = "{fake.url}/v1"\napi_key_env = "WORK_LLM_KEY"\n'
        )
        env = {**user, "WORK_LLM_KEY": "sk-work-0123456789", "OPENAI_API_KEY": "sk-oa-0123"}
        with RawAgent(env) as agent:
            agent.initialize()
            session_id = new_session(agent, workspace)["result"]["sessionId"]
            result = agent.request("logout", {})["result"]
            assert result == ignoring("OPENAI_API_KEY", "WORK_LLM_KEY")
            assert new_session(agent, workspace)["error"]["code"] == -32000
            assert prompt(agent, session_id, "logged out")["error"]["code"] == -32000

            config.write_text(config.read_text() + "# an edit without a key\n")
            assert new_session(agent, workspace)["error"]["code"] == -32000  # still logged out

            heron_login(user, "anthropic", "sk-ant-file-0123456789")  # the editor's terminal
            fake.enqueue(Reply((Text("back"),)), Reply((Text("again"),)))
            assert prompt(agent, session_id, "logged in")["result"]["stopReason"] == "end_turn"
            other = new_session(agent, workspace)["result"]["sessionId"]
            assert prompt(agent, other, "new one")["result"]["stopReason"] == "end_turn"
    # the model is still work's (the file named one): its key from the environment is back
    assert [(r.path, key_of(r)) for r in fake.requests] == [
        ("/v1/chat/completions", "sk-work-0123456789")
    ] * 2


def test_initialize_then_logout_answers_a_result(
    agent_env: dict[str, str], workspace: Path
) -> None:
    """The conformance sequence, with nothing to log out of: a result, and the scripted
    model, which needs no key, goes on working."""
    with RawAgent(agent_env) as agent:
        assert agent.initialize()["agentCapabilities"]["auth"] == {"logout": {}}
        assert agent.request("logout", {})["result"] == {}
        assert agent.request("logout", {"_meta": {}})["result"] == {}
        assert "result" in new_session(agent, workspace)


def test_the_watch_logged_out_reads_the_environment_without_its_keys(
    heron_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HERON_HOME", str(heron_home))
    monkeypatch.setenv("HERON_MODEL", "anthropic:claude-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", ENV_KEY)
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-0123456789")  # a preset's variable
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    watch = ConfigWatch()
    assert watch.settings.has_credentials() and not watch.logged_out
    assert "openrouter" in watch.settings.providers

    assert watch.log_out() == ("ANTHROPIC_API_KEY", "OPENROUTER_API_KEY")
    settings = watch.settings
    assert watch.logged_out and not settings.has_credentials()
    assert settings.provider("anthropic").api_key is None
    assert settings.provider("openrouter").api_key is None
    assert settings.model == "anthropic:claude-test"  # only the keys are read as unset
    assert secrets_to_redact(settings)["ANTHROPIC_API_KEY"] == ENV_KEY  # still a secret
    assert not watch.refresh() and watch.settings is settings

    config = heron_home / "config.toml"
    config.write_text('[providers.work]\napi = "openai-chat"\napi_key_env = "WORK_KEY"\n')
    monkeypatch.setenv("WORK_KEY", "sk-work-0123456789")
    assert watch.refresh() and watch.logged_out  # a provider added while logged out: no key
    assert watch.settings.provider("work").api_key is None
    assert "WORK_KEY" in watch.settings.ignored_keys
    config.write_text("model = [broken\n")  # a file being edited: still logged out
    assert watch.refresh() and watch.problem is not None and watch.logged_out
    config.write_text("")

    store_api_key(heron_home, "openai", "sk-file-0123456789")  # what `heron login` does
    assert watch.refresh() and not watch.logged_out
    assert watch.settings.ignored_keys == ()
    assert watch.settings.provider("anthropic").api_key == ENV_KEY  # every key is back

    watch.log_out()
    assert watch.logged_out  # the file's key is the caller's to remove (`logout` does)
    assert watch.settings.provider("openai").api_key == "sk-file-0123456789"
    watch.log_in()
    assert not watch.logged_out and watch.settings.provider("anthropic").api_key == ENV_KEY
