"""The reader under attack, over real stdio: whatever a line holds, it gets at most a JSON-RPC
error, nothing but JSON-RPC reaches stdout, nothing is logged as a crash, and the server goes
on answering ``initialize``."""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.raw import RawAgent

PARSE_ERROR, INVALID_REQUEST = -32700, -32600
FUZZ_SECONDS = 6.0

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
SEEDS = [
    INITIALIZE,
    {"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": "/", "mcpServers": []}},
    {"jsonrpc": "2.0", "id": "p", "method": "session/prompt", "params": {"sessionId": "s"}},
    {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}},
    {"jsonrpc": "2.0", "id": 9, "result": {"content": "x"}},
]


@pytest.fixture
def env(agent_env: dict[str, str]) -> dict[str, str]:
    """The echo model: ``agent`` needs no model server here."""
    return agent_env


def adversarial_lines() -> Iterator[bytes]:
    """The lines that broke readers before, or could."""
    yield b"[" * 1_000  # the decoder's recursion limit
    yield b"[" * 100_000 + b"]" * 100_000
    yield b'{"a":' * 5_000 + b"1" + b"}" * 5_000
    yield b'{"jsonrpc":"2.0","id":7,"method":"initialize","params":' + b"[" * 70 + b"]" * 70 + b"}"
    yield b"1" * 100_000  # past Python's int digit limit
    yield b'{"jsonrpc":"2.0","id":' + b"9" * 5_000 + b',"method":"initialize"}'
    yield b'{"jsonrpc":"2.0","id":1e999999,"method":"initialize","params":{"protocolVersion":1}}'
    yield b'{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":NaN}}'
    yield b"-Infinity"
    yield b"\xff\xfe\x00garbage\x80\x81"  # not UTF-8
    yield b"\xef\xbb\xbf" + json.dumps(INITIALIZE).encode()  # a byte-order mark
    yield b'{"jsonrpc":"2.0","id":"\\ud800","method":"\\udc00","params":{"\\ud800":"\\udfff"}}'
    yield b'{"jsonrpc":"2.0","id":4,"method":"session/load","params":{"sessionId":"\\ud800",'
    yield b'"cwd":"/\\udbff","mcpServers":[]}}'
    yield b'{"jsonrpc":"2.0","id":5,"method":"session/list","params":{"cwd":"/tmp/\xed\xa0\x80"}}'
    yield b'{"jsonrpc":"2.0","id":6,"method":"session/list","params":{"cwd":"/\\u0000"}}'
    yield b"\x00" * 1_000
    yield b"\r"
    yield b'"' + b"\\" * 10_001 + b'"'
    yield b'{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":1},' * 1_000
    yield b'{"jsonrpc":"2.0","id":10,"method":"x","params":{"blob":"' + b"A" * (50 << 20) + b'"}}'
    yield b"Z" * (50 << 20)  # 50 MB of nothing


def random_lines(rng: random.Random) -> Iterator[bytes]:
    """Valid messages cut, spliced and corrupted, and plain random bytes."""
    mutations: list[Callable[[bytes], bytes]] = [
        lambda b: b[: rng.randrange(len(b))],
        lambda b: b[rng.randrange(len(b)) :],
        lambda b: bytes(rng.randrange(256) if rng.random() < 0.05 else x for x in b),
        lambda b: b.replace(b'"', b"", rng.randrange(1, 5)),
        lambda b: b.replace(b"{", b"[" * rng.randrange(1, 3000), 1),
        lambda b: b + b,
        lambda b: b.replace(b"2.0", rng.choice([b"1.0", b"2", b"null", b"\\ud800"])),
    ]
    while True:
        if rng.random() < 0.1:
            yield rng.randbytes(rng.randrange(1, 4096)).replace(b"\n", b" ")
            continue
        line = json.dumps(rng.choice(SEEDS)).encode()
        for _ in range(rng.randrange(1, 4)):
            line = rng.choice(mutations)(line) or b"{"
        yield line.replace(b"\n", b" ")


def serves(agent: RawAgent, request_id: str) -> None:
    """The agent answers a good ``initialize`` after whatever came before."""
    message = dict(INITIALIZE, id=request_id)
    agent.send_raw(json.dumps(message).encode() + b"\n")
    response = agent.wait_for(lambda m: m.get("id") == request_id, timeout=30)
    assert response["result"]["protocolVersion"] == 1


def assert_no_crash(agent: RawAgent, context: str = "") -> None:
    assert agent.proc.poll() is None, f"{context} {agent.stderr[-2000:]!r}"
    assert b"Traceback" not in agent.stderr, context + agent.stderr.decode(errors="replace")[-4000:]


def test_adversarial_lines_get_errors_and_serving_goes_on(agent_env: dict[str, str]) -> None:
    with RawAgent(agent_env) as agent:
        for number, line in enumerate(adversarial_lines()):
            agent.send_raw(line + b"\n")
            serves(agent, f"after-{number}")
        assert_no_crash(agent)
        errors = [m["error"] for m in agent.drain() if "error" in m]
        assert all(e["code"] in (PARSE_ERROR, INVALID_REQUEST) or e["code"] < 0 for e in errors)


def test_deep_nesting_is_a_parse_error_answered_at_once(agent_env: dict[str, str]) -> None:
    with RawAgent(agent_env) as agent:
        agent.send_raw(b"[" * 1_000 + b"\n")
        error = agent.wait_for(lambda m: "error" in m)["error"]
        assert error["code"] == PARSE_ERROR
        assert "nested" in error["message"]
        deep = {"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {}}
        node: dict[str, object] = deep["params"]  # type: ignore[assignment]
        for _ in range(100):
            node["x"] = node = {}
        agent.send_raw(json.dumps(deep).encode() + b"\n")
        error = agent.wait_for(lambda m: m.get("id") == 7)["error"]
        assert error["code"] == INVALID_REQUEST  # parsed, refused before anything walks it
        serves(agent, "still")
        assert_no_crash(agent)


def test_lone_surrogates_become_replacement_characters(agent: RawAgent, workspace: Path) -> None:
    agent.send_raw(
        b'{"jsonrpc":"2.0","id":"\\ud800x","method":"session/load","params":'
        b'{"sessionId":"\\ud800","cwd":"' + str(workspace).encode() + b'","mcpServers":[]}}\n'
    )
    response = agent.wait_for(lambda m: "error" in m)
    assert response["id"] == "\ud800x"  # the id is echoed exactly
    assert response["error"]["data"] == {"sessionId": "\ufffd"}
    assert_no_crash(agent)


@pytest.mark.timeout(120)
def test_random_lines_for_a_while(agent_env: dict[str, str]) -> None:
    seed = int(os.environ.get("HERON_FUZZ_SEED", time.time_ns()))
    rng = random.Random(seed)
    with RawAgent(agent_env) as agent:
        lines = random_lines(rng)
        deadline = time.monotonic() + FUZZ_SECONDS
        rounds = 0
        while time.monotonic() < deadline:
            batch = b"".join(next(lines) + b"\n" for _ in range(20))
            agent.send_raw(batch)
            rounds += 1
            try:
                serves(agent, f"round-{rounds}")
            except AssertionError as exc:
                raise AssertionError(f"HERON_FUZZ_SEED={seed}: {exc}") from None
        assert_no_crash(agent, f"HERON_FUZZ_SEED={seed}: ")
