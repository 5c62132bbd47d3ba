"""The pure parts of MCP support: server lists from the editor and config.toml, tool names,
what a call's result becomes for the model and the editor, images in tool results."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.types import (
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ResourceLink,
    TextResourceContents,
)
from mcp.types import (
    ImageContent as McpImage,
)
from mcp.types import (
    TextContent as McpText,
)

from acp_server.bridge.updates import to_tool_content
from acp_server.handlers import params
from acp_server.jsonrpc.errors import RpcError
from agent_core.config import load_settings
from agent_core.errors import ConfigError
from agent_core.events import ImageContent, ResourceContent, TextContent
from agent_core.mcp.results import from_call_result
from agent_core.mcp.servers import HttpServer, StdioServer, merge
from agent_core.mcp.tool import tool_name
from agent_core.messages import ImagePart, ToolResultPart, UserMessage
from agent_core.models.anthropic import to_anthropic_params
from agent_core.models.base import ModelRequest
from agent_core.models.catalog import ModelInfo
from agent_core.models.openai import to_responses_params
from agent_core.models.openai_chat import to_chat_params
from agent_core.sessions.codec import dump_message, load_message


def test_the_editors_servers_are_read_from_session_new() -> None:
    request = {
        "mcpServers": [
            {
                "name": "db",
                "command": "/bin/db",
                "args": ["-q"],
                "env": [{"name": "A", "value": "1"}],
            },
            {
                "type": "http",
                "name": "web",
                "url": "https://x/mcp",
                "headers": [{"name": "Authorization", "value": "t"}],
            },
            {"type": "sse", "name": "old", "url": "https://x/sse", "headers": []},
        ]
    }
    assert params.mcp_servers(request) == (
        StdioServer("db", "/bin/db", ("-q",), {"A": "1"}),
        HttpServer("web", "https://x/mcp", {"Authorization": "t"}),
        HttpServer("old", "https://x/sse", {}, "sse"),
    )


@pytest.mark.parametrize(
    ("server", "problem"),
    [
        ({"command": "/bin/x", "args": [], "env": []}, "'name'"),
        ({"name": "x", "args": [], "env": []}, "'command'"),
        ({"name": "x", "command": "/bin/x", "args": [1], "env": []}, "args must be strings"),
        ({"name": "x", "command": "/bin/x", "args": [], "env": [{"name": "A"}]}, "each of env"),
        ({"type": "websocket", "name": "x", "url": "ws://x"}, "supports stdio, http and sse"),
    ],
)
def test_a_malformed_server_is_a_clear_invalid_params_error(
    server: dict[str, object], problem: str
) -> None:
    with pytest.raises(RpcError) as caught:
        params.mcp_servers({"mcpServers": [server]})
    assert caught.value.code == -32602 and problem in caught.value.message


def test_config_servers_and_timeouts(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text(
        "[mcp]\nconnect_timeout = 3\ncall_timeout = 60\n"
        '[mcp_servers.github]\ncommand = "gh-mcp"\nargs = ["serve"]\nenv = { GH_TOKEN = "t" }\n'
        '[mcp_servers.docs]\nurl = "https://docs/sse"\ntransport = "sse"\nheaders = { X = "y" }\n'
    )
    settings = load_settings({"HERON_HOME": str(tmp_path)})
    assert settings.mcp_servers == (
        StdioServer("github", "gh-mcp", ("serve",), {"GH_TOKEN": "t"}),
        HttpServer("docs", "https://docs/sse", {"X": "y"}, "sse"),
    )
    assert (settings.mcp_connect_timeout, settings.mcp_call_timeout) == (3, 60)
    (tmp_path / "config.toml").write_text('[mcp_servers.bad]\nargs = ["x"]\n')
    with pytest.raises(ConfigError, match=r"\[mcp_servers.bad\] needs either command or url"):
        load_settings({"HERON_HOME": str(tmp_path)})


def test_the_editors_list_wins_on_a_name_clash() -> None:
    editor = [StdioServer("db", "/editor/db")]
    user = [StdioServer("db", "/user/db"), HttpServer("web", "https://w")]
    assert merge(editor, user) == [StdioServer("db", "/editor/db"), HttpServer("web", "https://w")]


def test_tool_names_are_namespaced_in_characters_every_provider_takes() -> None:
    assert tool_name("github", "create_issue") == "mcp__github__create_issue"
    assert tool_name("my server", "get.file") == "mcp__my_server__get_file"
    assert len(tool_name("s" * 50, "t" * 50)) == 64


def test_a_result_becomes_text_and_images_for_the_model_and_content_for_the_editor() -> None:
    result = CallToolResult(
        content=[
            McpText(text="two files"),
            McpImage(data="AAAA", mime_type="image/png"),
            ResourceLink(uri="file:///w/a.py", name="a.py", mime_type="text/x-python"),
            EmbeddedResource(
                resource=TextResourceContents(
                    uri="file:///w/b.txt", text="hello", mime_type="text/plain"
                )
            ),
            EmbeddedResource(resource=BlobResourceContents(uri="file:///w/c.bin", blob="AA==")),
        ]
    )
    converted = from_call_result(result)
    assert converted.text.split("\n\n") == [
        "two files",
        "Resource a.py: file:///w/a.py",
        "Resource file:///w/b.txt:\nhello",
        "[binary resource file:///w/c.bin (unknown type); not shown]",
    ]
    assert converted.images == (ImagePart("AAAA", "image/png"),)
    assert converted.shown[:3] == (
        TextContent("two files"),
        ImageContent("AAAA", "image/png"),
        ResourceContent("file:///w/a.py", "a.py", "text/x-python"),
    )
    assert [to_tool_content(c)["content"]["type"] for c in converted.shown] == [
        "text",
        "image",
        "resource_link",
        "resource",
        "resource_link",
    ]
    structured = from_call_result(
        CallToolResult(content=[], structured_content={"n": 1}, is_error=True)
    )
    assert (structured.text, structured.is_error) == ('{"n": 1}', True)


IMAGE_RESULT = UserMessage(
    (ToolResultPart("c1", "a chart", images=(ImagePart("AAAA", "image/png"),)),)
)


def test_images_in_tool_results_reach_each_provider_and_survive_storage() -> None:
    assert load_message(dump_message(IMAGE_RESULT)) == IMAGE_RESULT
    request, sees = ModelRequest("s", (IMAGE_RESULT,)), ModelInfo(images=True)
    [message] = to_anthropic_params("claude-x", request, sees)["messages"]
    content = message["content"][0]["content"]
    assert [b["type"] for b in content] == ["text", "image"]
    [item] = to_responses_params("gpt-5", request, sees)["input"]
    assert [p["type"] for p in item["output"]] == ["input_text", "input_image"]
    _, tool, user = to_chat_params("m", request, sees)["messages"]
    assert tool == {"role": "tool", "tool_call_id": "c1", "content": "a chart"}
    assert [p["type"] for p in user["content"]] == ["text", "image_url"]
