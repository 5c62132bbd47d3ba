"""Images end to end over real stdio: a prompt's image and ``read_file`` on real PNG and JPEG
files reach each provider in its own format (the fake LLM server records the bodies the real
SDKs sent); a model that cannot see images reads a description; a loaded session replays the
images and sends them again."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from agent_core.tools.images import MAX_IMAGE_BYTES
from tests.support.editor import FakeEditor
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall
from tests.support.images import jpeg, png
from tests.support.raw import RawAgent
from tests.support.session_load import load, reopen, updates_before

PROVIDERS = {
    "anthropic": "anthropic:claude-sonnet-4-5",
    "openai": "openai:gpt-5",
    "openai-chat": "openai-chat:qwen2.5-vl-7b",  # a vision model Heron is told about
}
CONFIG = '[models."openai-chat:qwen2.5-vl-7b"]\nimages = true\n'
PIXEL = base64.b64encode(png(1, 1)).decode()


@pytest.fixture(params=list(PROVIDERS))
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def provider_env(agent_env: dict[str, str], fake: FakeLLM, model: str) -> dict[str, str]:
    (Path(agent_env["HERON_HOME"]) / "config.toml").write_text(CONFIG)
    return {**agent_env, **fake.environment(model)}


@pytest.fixture
def pictures(workspace: Path) -> dict[str, str]:
    """A real PNG and a real JPEG in the workspace (the JPEG named as if it were text)."""
    (workspace / "chart.png").write_bytes(png(40, 30))
    (workspace / "photo.txt").write_bytes(jpeg(24, 16))
    return {
        name: base64.b64encode((workspace / name).read_bytes()).decode()
        for name in ("chart.png", "photo.txt")
    }


def image_block(provider: str, mime: str, data: str) -> dict[str, Any]:
    """An image as each API takes it."""
    url = f"data:{mime};base64,{data}"
    return {
        "anthropic": {
            "type": "image",
            "source": {"type": "base64", "media_type": mime, "data": data},
        },
        "openai": {"type": "input_image", "image_url": url},
        "openai-chat": {"type": "image_url", "image_url": {"url": url}},
    }[provider]


def send_prompt(
    agent: RawAgent, session_id: str, blocks: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A prompt of any content blocks: the updates before its answer, and the answer."""
    request_id = f"prompt-{len(blocks)}-{id(blocks)}"
    params = {"sessionId": session_id, "prompt": blocks}
    agent.send({"jsonrpc": "2.0", "id": request_id, "method": "session/prompt", "params": params})
    return updates_before(agent, request_id)


def without_cache_marks(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in b.items() if k != "cache_control"} for b in blocks]


def test_an_image_in_the_prompt_reaches_each_provider_in_its_format(
    agent_env: dict[str, str], workspace: Path, fake: FakeLLM, provider: str
) -> None:
    fake.enqueue(Reply((Text("a red pixel"),)))
    with RawAgent(provider_env(agent_env, fake, PROVIDERS[provider])) as agent:
        capabilities = agent.initialize()["agentCapabilities"]["promptCapabilities"]
        session_id = agent.new_session(workspace)
        prompt = [
            {"type": "text", "text": "what is this?"},
            {"type": "image", "data": PIXEL, "mimeType": "image/png"},
        ]
        response = agent.request("session/prompt", {"sessionId": session_id, "prompt": prompt})
    assert capabilities["image"] is True and response["result"]["stopReason"] == "end_turn"
    body = fake.requests[0].body
    user = {
        "anthropic": lambda: without_cache_marks(body["messages"][0]["content"]),
        "openai": lambda: body["input"][0]["content"],
        "openai-chat": lambda: body["messages"][1]["content"],
    }[provider]()
    text = {"anthropic": "text", "openai": "input_text", "openai-chat": "text"}[provider]
    assert user == [
        {"type": text, "text": "what is this?"},
        image_block(provider, "image/png", PIXEL),
    ]


def test_read_file_shows_a_png_and_a_jpeg_to_the_model_and_the_user(
    agent_env: dict[str, str],
    workspace: Path,
    fake: FakeLLM,
    provider: str,
    pictures: dict[str, str],
) -> None:
    fake.enqueue(
        Reply(
            (
                ToolCall("read_file", {"path": "chart.png"}, call_id="call_png"),
                ToolCall("read_file", {"path": "photo.txt"}, call_id="call_jpg"),
            )
        ),
        Reply((Text("a chart and a grey photo"),)),
    )
    with FakeEditor(provider_env(agent_env, fake, PROVIDERS[provider])) as editor:
        stop, updates = editor.prompt(editor.start_session(workspace), "what are these?")
    assert stop == "end_turn"
    assert not [r for r in editor.requests if r["method"] == "fs/read_text_file"]  # from disk
    png_text = f"chart.png: PNG image, 40×30 pixels, {len(png(40, 30)):,} bytes."
    jpg_text = f"photo.txt: JPEG image, 24×16 pixels, {len(jpeg(24, 16)):,} bytes."
    png_image = image_block(provider, "image/png", pictures["chart.png"])
    jpg_image = image_block(provider, "image/jpeg", pictures["photo.txt"])
    body = fake.requests[1].body
    if provider == "anthropic":
        results = without_cache_marks(body["messages"][-1]["content"])
        assert [(r["type"], r["tool_use_id"]) for r in results] == [
            ("tool_result", "call_png"),
            ("tool_result", "call_jpg"),
        ]
        assert results[0]["content"] == [{"type": "text", "text": png_text}, png_image]
        assert results[1]["content"] == [{"type": "text", "text": jpg_text}, jpg_image]
    elif provider == "openai":
        outputs = [i for i in body["input"] if i.get("type") == "function_call_output"]
        assert [o["call_id"] for o in outputs] == ["call_png", "call_jpg"]
        assert outputs[0]["output"] == [{"type": "input_text", "text": png_text}, png_image]
        assert outputs[1]["output"] == [{"type": "input_text", "text": jpg_text}, jpg_image]
    else:  # tool messages take text only: the images follow in a user message
        *_, tool_png, tool_jpg, user = body["messages"]
        assert tool_png == {"role": "tool", "tool_call_id": "call_png", "content": png_text}
        assert tool_jpg == {"role": "tool", "tool_call_id": "call_jpg", "content": jpg_text}
        assert user == {
            "role": "user",
            "content": [
                {"type": "text", "text": "The image(s) the call_png tool call returned:"},
                png_image,
                {"type": "text", "text": "The image(s) the call_jpg tool call returned:"},
                jpg_image,
            ],
        }
    shown = {
        u["toolCallId"]: u["content"]
        for u in updates
        if u["sessionUpdate"] == "tool_call_update" and u.get("content")
    }
    assert shown["call_png"] == [
        {
            "type": "content",
            "content": {"type": "image", "data": pictures["chart.png"], "mimeType": "image/png"},
        }
    ]
    assert shown["call_jpg"][0]["content"]["mimeType"] == "image/jpeg"
    finals = [u for u in updates if u.get("status") == "completed"]
    assert {u["toolCallId"]: u["rawOutput"]["output"] for u in finals} == {
        "call_png": png_text,
        "call_jpg": jpg_text,
    }


def test_a_model_that_cannot_see_images_reads_what_the_image_is(
    agent_env: dict[str, str], workspace: Path, fake: FakeLLM, pictures: dict[str, str]
) -> None:
    (workspace / "huge.png").write_bytes(png(2, 2) + bytes(MAX_IMAGE_BYTES))
    fake.enqueue(
        Reply(
            (
                ToolCall("read_file", {"path": "chart.png"}, call_id="call_png"),
                ToolCall("read_file", {"path": "huge.png"}, call_id="call_huge"),
            )
        ),
        Reply((Text("I cannot see it"),)),
    )
    env = provider_env(agent_env, fake, "openai-chat:qwen3-coder")  # not a vision model
    mention = {"type": "resource_link", "uri": f"file://{workspace}/chart.png", "name": "chart.png"}
    with RawAgent(env) as agent:
        capabilities = agent.initialize()["agentCapabilities"]["promptCapabilities"]
        session_id = agent.new_session(workspace)
        updates, _ = send_prompt(agent, session_id, [{"type": "text", "text": "what?"}, mention])
    assert capabilities["image"] is False
    messages = fake.requests[1].body["messages"]
    size = len(png(40, 30))
    assert (
        f"(PNG image, 40×30 pixels, {size:,} bytes; read_file shows it)" in messages[1]["content"]
    )
    tools = {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}
    assert tools["call_png"].startswith("chart.png: PNG image, 40×30 pixels, ")
    assert "this model cannot see images" in tools["call_png"]
    assert "over the 3,750,000 bytes a model is shown" in tools["call_huge"]
    assert "image_url" not in str(messages) and messages[-1]["role"] == "tool"
    [failed] = [u for u in updates if u.get("status") == "failed"]
    assert failed["toolCallId"] == "call_huge"


def test_a_loaded_session_replays_its_images_and_sends_them_again(
    agent_env: dict[str, str], workspace: Path, fake: FakeLLM, pictures: dict[str, str]
) -> None:
    env = provider_env(agent_env, fake, PROVIDERS["anthropic"])
    fake.enqueue(
        Reply((ToolCall("read_file", {"path": "chart.png"}, call_id="toolu_png"),)),
        Reply((Text("a chart"),)),
    )
    prompt = [
        {"type": "text", "text": "compare"},
        {"type": "image", "data": PIXEL, "mimeType": "image/png"},
    ]
    with RawAgent(env) as agent:
        session_id = agent.start_session(workspace)
        agent.request("session/prompt", {"sessionId": session_id, "prompt": prompt})
    with RawAgent(env) as agent:  # a fresh process
        replayed, response = reopen(agent, session_id, workspace)
        assert "result" in response
        fake.enqueue(Reply((Text("still a chart"),)))
        stop, _ = agent.prompt(session_id, "and now?")
    assert stop == "end_turn"
    assert [u["content"] for u in replayed if u["sessionUpdate"] == "user_message_chunk"] == prompt
    [call] = [u for u in replayed if u["sessionUpdate"] == "tool_call"]
    assert call["title"] == "Read chart.png" and call["kind"] == "read"
    [done] = [u for u in replayed if u["sessionUpdate"] == "tool_call_update"]
    assert done["status"] == "completed" and done["rawOutput"]["output"].startswith("chart.png")
    image = {"type": "image", "data": pictures["chart.png"], "mimeType": "image/png"}
    assert done["content"] == [{"type": "content", "content": image}]
    first, _, results, *_ = fake.requests[2].body["messages"]
    assert image_block("anthropic", "image/png", PIXEL) in without_cache_marks(first["content"])
    [result] = results["content"]
    assert result["content"][1] == image_block("anthropic", "image/png", pictures["chart.png"])

    with RawAgent(env) as agent:  # switched to a model that cannot see images
        agent.initialize({"session": {"notices": {}}})  # images advertised: the first model
        load(agent, session_id, workspace)
        agent.prompt(session_id, "/model openai-chat:qwen3-coder")
        fake.enqueue(Reply((Text("text only"),)))
        updates, answer = send_prompt(agent, session_id, prompt)
    assert answer["result"]["stopReason"] == "end_turn"
    [notice] = [u for u in updates if u["sessionUpdate"] == "notice"]
    assert notice["title"] == "Image left out" and "qwen3-coder" in notice["description"]
    messages = fake.requests[3].body["messages"]
    assert "image_url" not in str(messages)
    unseen = "[an image was here; this model cannot see images]"
    assert unseen in messages[1]["content"] and unseen in messages[-1]["content"]
    tool = next(m for m in messages if m["role"] == "tool")
    assert tool["content"].endswith("[1 image(s) left out; this model cannot see images]")
