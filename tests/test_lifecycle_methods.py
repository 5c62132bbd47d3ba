"""`initialize` negotiation and `authenticate`, over real stdio."""

from __future__ import annotations

from pathlib import Path

from tests.support.raw import RawAgent


def test_initialize_answers_version_1_whatever_is_asked(agent_env: dict[str, str]) -> None:
    with RawAgent(agent_env) as agent:
        for asked in (1, 2, 65535, 0):
            params = {
                "protocolVersion": asked,
                "clientCapabilities": {},
                "info": {"name": "x", "version": "1"},
            }
            result = agent.request("initialize", params, check=asked == 1)["result"]
            assert result["protocolVersion"] == 1


def test_initialize_is_honest_about_capabilities(agent_env: dict[str, str]) -> None:
    with RawAgent(agent_env) as agent:
        result = agent.initialize()
    capabilities = result["agentCapabilities"]
    assert capabilities["loadSession"] is True
    assert capabilities["promptCapabilities"] == {
        "image": False,
        "audio": False,
        "embeddedContext": True,
    }
    assert capabilities["mcpCapabilities"] == {"http": True, "sse": True}
    assert set(capabilities["sessionCapabilities"]) == {
        "additionalDirectories",
        "list",
        "resume",
        "close",
        "delete",
        "fork",
        "systemPrompt",
    }
    assert result["agentInfo"]["name"] == "heron"
    [method] = result["authMethods"]
    assert "type" not in method or method["type"] == "agent"
    assert "ANTHROPIC_API_KEY" in method["description"]


def test_authenticate(agent_env: dict[str, str], workspace: Path) -> None:
    with RawAgent(agent_env) as agent:
        agent.initialize()
        assert agent.request("authenticate", {"methodId": "api-key"})["result"] == {}
        assert agent.request("authenticate", {"methodId": "nope"})["error"]["code"] == -32602


def test_without_a_model_or_key_sessions_ask_for_authentication(
    agent_env: dict[str, str], workspace: Path
) -> None:
    del agent_env["HERON_MODEL"]
    with RawAgent(agent_env) as agent:
        agent.initialize()
        assert agent.request("authenticate", {"methodId": "api-key"})["error"]["code"] == -32000
        error = agent.request("session/new", {"cwd": str(workspace), "mcpServers": []})["error"]
        assert error["code"] == -32000
        assert "HERON_MODEL" in error["message"]


def test_an_unknown_provider_is_a_clear_session_error(
    agent_env: dict[str, str], workspace: Path
) -> None:
    agent_env["HERON_MODEL"] = "scripted:no-such-script"
    with RawAgent(agent_env) as agent:
        agent.initialize()
        error = agent.request("session/new", {"cwd": str(workspace), "mcpServers": []})["error"]
        assert "no-such-script" in error["message"]


def test_sessions_offer_the_approval_modes_both_ways(
    agent_env: dict[str, str], workspace: Path
) -> None:
    with RawAgent(agent_env) as agent:
        agent.initialize()
        result = agent.request("session/new", {"cwd": str(workspace), "mcpServers": []})["result"]
        session_id = result["sessionId"]
        assert result["modes"]["currentModeId"] == "ask"
        assert [m["id"] for m in result["modes"]["availableModes"]] == [
            "ask",
            "accept-edits",
            "plan",
            "full-access",
        ]
        options = {o["id"]: o for o in result["configOptions"]}
        assert set(options) == {"mode", "model"}  # the scripted model takes no thought level
        assert options["mode"]["category"] == "mode" and options["mode"]["currentValue"] == "ask"
        assert (
            options["model"]["category"] == "model"
            and options["model"]["currentValue"] == "scripted:echo"
        )

        changed = agent.request(
            "session/set_config_option",
            {"sessionId": session_id, "configId": "mode", "value": "plan"},
        )
        assert changed["result"]["configOptions"][0]["currentValue"] == "plan"
        assert (
            agent.request("session/set_mode", {"sessionId": session_id, "modeId": "full-access"})[
                "result"
            ]
            == {}
        )
        updates = [
            m["params"]["update"] for m in agent.drain() if m.get("method") == "session/update"
        ]
        assert {"sessionUpdate": "current_mode_update", "currentModeId": "plan"} in updates
        assert {"sessionUpdate": "current_mode_update", "currentModeId": "full-access"} in updates

        bad = agent.request(
            "session/set_mode", {"sessionId": session_id, "modeId": "yolo"}, check=False
        )["error"]
        assert bad["code"] == -32602 and "yolo" in bad["message"]
        unknown = agent.request(
            "session/set_config_option",
            {"sessionId": session_id, "configId": "model", "value": "x"},
        )["error"]
        assert unknown["code"] == -32602
        gone = agent.request("session/set_mode", {"sessionId": "nope", "modeId": "ask"})["error"]
        assert gone["code"] == -32002


def test_the_default_mode_comes_from_the_environment(
    agent_env: dict[str, str], workspace: Path
) -> None:
    agent_env["HERON_MODE"] = "accept-edits"
    with RawAgent(agent_env) as agent:
        agent.initialize()
        result = agent.request("session/new", {"cwd": str(workspace), "mcpServers": []})["result"]
    assert result["modes"]["currentModeId"] == "accept-edits"


def test_the_model_can_be_switched_and_the_choice_survives_a_restart(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other-script.json"
    other.write_text('{"rules": [{"match": "", "replies": [[{"text": "from the other model"}]]}]}')
    with RawAgent(agent_env) as agent:
        session_id = agent.start_session(workspace)
        switched = agent.request(
            "session/set_config_option",
            {"sessionId": session_id, "configId": "model", "value": f"scripted:{other}"},
        )
        assert {o["id"]: o["currentValue"] for o in switched["result"]["configOptions"]}[
            "model"
        ] == f"scripted:{other}"
        bad = agent.request(
            "session/set_config_option",
            {"sessionId": session_id, "configId": "model", "value": "nope:x"},
        )
        assert bad["error"]["code"] == -32602 and "nope:x" in bad["error"]["message"]
        _, updates = agent.prompt(session_id, "hi")
        assert "from the other model" in "".join(
            u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"
        )
    with RawAgent(agent_env) as agent:
        agent.initialize()
        loaded = agent.request(
            "session/load", {"sessionId": session_id, "cwd": str(workspace), "mcpServers": []}
        )["result"]
    assert {o["id"]: o["currentValue"] for o in loaded["configOptions"]}[
        "model"
    ] == f"scripted:{other}"


def test_models_that_reason_offer_a_thought_level(
    agent_env: dict[str, str], workspace: Path
) -> None:
    agent_env.update(HERON_MODEL="anthropic:claude-sonnet-4-5", ANTHROPIC_API_KEY="k")
    with RawAgent(agent_env) as agent:
        agent.initialize()
        result = agent.request("session/new", {"cwd": str(workspace), "mcpServers": []})["result"]
        options = {o["id"]: o for o in result["configOptions"]}
        assert options["thought_level"]["currentValue"] == "default"
        assert "anthropic:claude-opus-4-1" in [o["value"] for o in options["model"]["options"]]
        changed = agent.request(
            "session/set_config_option",
            {"sessionId": result["sessionId"], "configId": "thought_level", "value": "high"},
        )
    assert {o["id"]: o["currentValue"] for o in changed["result"]["configOptions"]}[
        "thought_level"
    ] == "high"
