"""Malformed and unusual input over real stdio: each gets the right error, and serving goes on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.raw import RawAgent
from tests.support.scripted_model import scripted

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
RESOURCE_NOT_FOUND = -32002


@pytest.fixture
def env(agent_env: dict[str, str]) -> dict[str, str]:
    """The echo model: ``agent`` needs no model server here."""
    return agent_env


def still_serves(agent: RawAgent, workspace: Path) -> None:
    assert agent.new_session(workspace)


def test_invalid_json_gets_parse_error_and_serving_continues(
    agent: RawAgent, workspace: Path
) -> None:
    agent.send_raw(b'{"jsonrpc": "2.0", "id": 1, "method": \n')
    error = agent.wait_for(lambda m: "error" in m)
    assert error["id"] is None
    assert error["error"]["code"] == PARSE_ERROR
    still_serves(agent, workspace)


def test_valid_json_that_is_not_a_request(agent_env: dict[str, str], workspace: Path) -> None:
    with RawAgent(agent_env) as agent:
        agent.send_raw(b'{"foo": "bar"}\n')
        error = agent.wait_for(lambda m: "error" in m)
        assert error["error"]["code"] == INVALID_REQUEST
        agent.send_raw(b'"just a string"\n')
        assert agent.wait_for(lambda m: "error" in m)["error"]["code"] == INVALID_REQUEST
        agent.initialize()
        still_serves(agent, workspace)


def test_batch_gets_one_invalid_request(agent_env: dict[str, str], workspace: Path) -> None:
    with RawAgent(agent_env) as agent:
        batch = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
        ] * 2
        agent.send_raw(json.dumps(batch).encode() + b"\n")
        error = agent.wait_for(lambda m: "error" in m)
        assert error == {"jsonrpc": "2.0", "id": None, "error": error["error"]}
        assert error["error"]["code"] == INVALID_REQUEST
        assert "batch" in error["error"]["message"]
        assert agent.drain() == []  # one answer for the whole batch
        agent.initialize()
        still_serves(agent, workspace)


def test_unknown_methods_get_method_not_found(agent: RawAgent, workspace: Path) -> None:
    for method in ("session/teleport", "_tck/does_not_exist", "session/archive", "auth/logout"):
        error = agent.request(method, {}, check=False)["error"]
        assert error["code"] == METHOD_NOT_FOUND, method
        assert method in error["message"]
    still_serves(agent, workspace)


def test_wrong_param_types_are_invalid_params(agent_env: dict[str, str], workspace: Path) -> None:
    with RawAgent(agent_env) as agent:
        error = agent.request("initialize", {"protocolVersion": "1"}, check=False)["error"]
        assert error["code"] == INVALID_PARAMS
        assert "protocolVersion" in error["message"]
        session_id = agent.start_session(workspace)
        bad_prompts = [
            {"sessionId": session_id, "prompt": "hello"},
            {"sessionId": session_id, "prompt": [{"type": "text"}]},
            {"sessionId": session_id},
        ]
        for params in bad_prompts:
            assert (
                agent.request("session/prompt", params, check=False)["error"]["code"]
                == INVALID_PARAMS
            )
        still_serves(agent, workspace)


def test_cwd_must_be_an_existing_absolute_directory(agent: RawAgent, workspace: Path) -> None:
    cases = {
        "relative": {"cwd": "workspace", "mcpServers": []},
        "missing directory": {"cwd": str(workspace / "nope"), "mcpServers": []},
        "a file": {"cwd": str(workspace / "README.md"), "mcpServers": []},
        "no cwd": {"mcpServers": []},
        "relative additional directory": {
            "cwd": str(workspace),
            "mcpServers": [],
            "additionalDirectories": ["x"],
        },
    }
    for name, params in cases.items():
        error = agent.request("session/new", params, check=False)["error"]
        assert error["code"] == INVALID_PARAMS, name
        assert "\n" not in error["message"]
    still_serves(agent, workspace)


def test_additional_directories_are_accepted(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    with RawAgent(agent_env) as agent:
        capabilities = agent.initialize()["agentCapabilities"]
        assert capabilities["sessionCapabilities"]["additionalDirectories"] == {}
        params = {"cwd": str(workspace), "mcpServers": [], "additionalDirectories": [str(other)]}
        assert agent.request("session/new", params)["result"]["sessionId"]


def test_unknown_session_ids_get_resource_not_found(agent: RawAgent, workspace: Path) -> None:
    prompt = {"sessionId": "no-such-session", "prompt": [{"type": "text", "text": "hi"}]}
    error = agent.request("session/prompt", prompt)["error"]
    assert error["code"] == RESOURCE_NOT_FOUND
    assert "no-such-session" in error["message"]
    agent.notify("session/cancel", {"sessionId": "no-such-session"})
    assert agent.drain() == []  # a notification is never answered, not even with an error
    still_serves(agent, workspace)


def test_request_ids_are_echoed_exactly(agent_env: dict[str, str]) -> None:
    with RawAgent(agent_env) as agent:
        for request_id in (424242, "tck-string-id", 0):
            agent.send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "method": "initialize",
                    "params": {"protocolVersion": 1},
                }
            )
            response = agent.wait_for(
                lambda m, i=request_id: m.get("id") == i and type(m["id"]) is type(i)
            )
            assert "result" in response


def test_a_50_mib_line_is_served_and_a_larger_one_refused(
    agent_env: dict[str, str], workspace: Path
) -> None:
    with RawAgent(agent_env) as agent:
        session_id = agent.start_session(workspace)
        big = "x" * (50 * 1024 * 1024)
        prompt = {"sessionId": session_id, "prompt": [{"type": "text", "text": big}]}
        response = agent.request("session/prompt", prompt, timeout=60)  # 50 MiB each way
        assert response["result"]["stopReason"] == "end_turn"
        agent.drain(quiet=0.5)
        huge = (
            b'{"jsonrpc":"2.0","id":99,"method":"initialize","params":{"pad":"'
            + b"y" * (70 * 1024 * 1024)
            + b'"}}\n'
        )
        agent.send_raw(huge)
        error = agent.wait_for(lambda m: "error" in m, timeout=30)
        assert error["error"]["code"] == INVALID_REQUEST
        assert "limit" in error["error"]["message"]
        still_serves(agent, workspace)


def test_cancel_request_on_a_prompt_ends_it_cancelled(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    env = scripted(agent_env, tmp_path, [{"text": "working"}, {"sleep": 30}])
    with RawAgent(env) as agent:
        agent.turn_under_way(workspace, "go", request_id="slow")
        agent.notify("$/cancel_request", {"requestId": "slow"})
        response = agent.wait_for(lambda m: m.get("id") == "slow", timeout=2)
        assert response["result"] == {"stopReason": "cancelled"}
        still_serves(agent, workspace)
