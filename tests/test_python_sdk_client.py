"""End to end with the official Python SDK as the client, over real stdio."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from acp import spawn_agent_process, text_block
from acp.connection import StreamDirection, StreamEvent
from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    AllowedOutcome,
    ClientCapabilities,
    FileSystemCapabilities,
    Implementation,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallProgress,
    ToolCallUpdate,
)

from tests.support.schema import WireChecker
from tests.support.scripted_model import scripted

pytestmark = pytest.mark.anyio


class RecordingClient:
    """A minimal editor: records updates, allows whatever is asked."""

    def __init__(self) -> None:
        self.updates: list[Any] = []
        self.first_update = anyio.Event()

    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        **kwargs: Any,
    ) -> RequestPermissionResponse:
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=options[0].option_id)
        )

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)
        self.first_update.set()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    def on_connect(self, conn: Any) -> None:
        return None


def heron(client: RecordingClient, env: dict[str, str], checker: WireChecker) -> Any:
    """``heron acp`` spawned by the SDK, every message checked against the schema."""
    argv = (sys.executable, "-m", "acp_server")
    return spawn_agent_process(client, *argv, env=env, observers=[wire_observer(checker)])


def wire_observer(checker: WireChecker) -> Any:
    def observe(event: StreamEvent) -> None:
        direction = "from_agent" if event.direction == StreamDirection.INCOMING else "to_agent"
        checker.check(direction, event.message)

    return observe


async def test_initialize_new_session_and_a_streamed_prompt(
    agent_env: dict[str, str], workspace: Path
) -> None:
    client, checker = RecordingClient(), WireChecker()
    async with heron(client, agent_env, checker) as (conn, _proc):
        init = await conn.initialize(
            protocol_version=1,
            client_capabilities=ClientCapabilities(),
            client_info=Implementation(name="sdk-test", version="0"),
        )
        assert init.protocol_version == 1
        assert init.agent_info is not None and init.agent_info.name == "heron"
        assert [m.id for m in init.auth_methods] == ["api-key"]
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        result = await conn.prompt(
            session_id=session.session_id, prompt=[text_block("hello heron")]
        )
    assert result.stop_reason == "end_turn"
    text = "".join(u.content.text for u in client.updates if isinstance(u, AgentMessageChunk))
    thought = "".join(u.content.text for u in client.updates if isinstance(u, AgentThoughtChunk))
    assert text == "You said: hello heron"
    assert thought
    message_ids = {u.message_id for u in client.updates if isinstance(u, AgentMessageChunk)}
    assert len(message_ids) == 1 and None not in message_ids
    assert checker.checked >= 6


async def test_cancel_stops_a_running_turn(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    env = scripted(agent_env, tmp_path, [{"text": "working on it"}, {"sleep": 60}])
    client, checker = RecordingClient(), WireChecker()
    async with heron(client, env, checker) as (conn, _proc):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        stop: list[str] = []

        async def run_prompt() -> None:
            result = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
            stop.append(result.stop_reason)

        with anyio.fail_after(5):  # leaving the group waits for the prompt's answer
            async with anyio.create_task_group() as group:
                group.start_soon(run_prompt)
                await client.first_update.wait()
                await conn.cancel(session_id=session.session_id)
        assert stop == ["cancelled"]
        # The session is still usable after a cancel.
        another = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert another.session_id != session.session_id


class ReadDenyingClient(RecordingClient):
    """An editor whose policy refuses every read: its SDK answers "Internal error" + details."""

    async def read_text_file(self, session_id: str, path: str, **kwargs: Any) -> Any:
        raise PermissionError(f"reads are disabled by workspace policy: {Path(path).name}")


async def test_the_editors_own_error_reaches_the_tool_result(
    agent_env: dict[str, str], workspace: Path, tmp_path: Path
) -> None:
    (workspace / "a.txt").write_text("secret plans\n")
    script = tmp_path / "read.json"
    reply = [{"tool_call": {"name": "read_file", "arguments": {"path": "a.txt"}}}]
    script.write_text(json.dumps({"rules": [{"match": "", "replies": [reply, [{"text": "ok"}]]}]}))
    agent_env["HERON_MODEL"] = f"scripted:{script}"
    client, checker = ReadDenyingClient(), WireChecker()
    async with heron(client, agent_env, checker) as (conn, _proc):
        await conn.initialize(
            protocol_version=1,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=False)
            ),
        )
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("read it")])
    [failed] = [
        u for u in client.updates if isinstance(u, ToolCallProgress) and u.status == "failed"
    ]
    output = json.dumps(failed.raw_output)
    assert "reads are disabled by workspace policy: a.txt" in output
