"""Plain params read by hand (``handlers.plain_params``) are read exactly as the wire models
read them; anything the tables do not know goes to the wire models."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from acp_server.handlers.plain_params import (
    ModeParams,
    OptionParams,
    PromptParams,
    mode_by_schema,
    option_by_schema,
    prompt_by_schema,
    read_mode,
    read_option,
    read_prompt,
)
from acp_server.jsonrpc.errors import RpcError

TEXT = {"type": "text", "text": "Fix the failing test"}
LINK = {
    "type": "resource_link",
    "uri": "file:///work/app/main.py",
    "name": "main.py",
    "mimeType": "text/x-python",
    "size": 1200,
    "title": "main",
    "description": "the entry point",
}
PLAIN = {"sessionId": "s-1", "prompt": [TEXT, LINK], "messageId": "m-1", "_meta": {"a": [1]}}

# What a mutation may put in place of a value: each a way a prompt stops being plain.
ODD_VALUES: list[Any] = [None, True, 3, 2.0, "", "x", [], {}, {"k": None}, ["text"]]
ODD_KEYS = ["annotations", "_meta", "extra", "uri", "type", "data", "resource", "size"]


def _schema_or_error(raw: Any) -> PromptParams | str:
    try:
        return prompt_by_schema(raw)
    except RpcError as exc:
        return f"error: {exc}"


@pytest.mark.parametrize(
    "raw",
    [
        PLAIN,
        {"sessionId": "s", "prompt": []},
        {"sessionId": "s", "prompt": [TEXT]},
        {"sessionId": "s", "prompt": [{"type": "resource_link", "uri": "u", "name": "n"}]},
    ],
)
def test_the_prompts_editors_send_are_read_by_hand_as_the_schema_reads_them(raw: Any) -> None:
    plain = read_prompt(raw)
    assert plain is not None
    assert plain == prompt_by_schema(raw)


@pytest.mark.parametrize(
    "raw",
    [
        None,
        [],
        {"sessionId": "s"},
        {"sessionId": 7, "prompt": [TEXT]},
        {"sessionId": "s", "prompt": "hello"},
        {"sessionId": "s", "prompt": [{"type": "text"}]},
        {"sessionId": "s", "prompt": [{"type": "text", "text": None}]},
        {"sessionId": "s", "prompt": [{**LINK, "size": True}]},
        {"sessionId": "s", "prompt": [{**LINK, "size": 3.0}]},
        {"sessionId": "s", "prompt": [{**TEXT, "annotations": {"priority": 1}}]},
        {"sessionId": "s", "prompt": [{**TEXT, "_meta": {"x": None}}]},
        {"sessionId": "s", "prompt": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]},
        {"sessionId": "s", "prompt": [TEXT], "other": 1},
        {"sessionId": "s", "prompt": [TEXT], "_meta": None},
    ],
)
def test_anything_else_is_left_to_the_wire_models(raw: Any) -> None:
    assert read_prompt(raw) is None


def _mutated(rng: random.Random) -> Any:
    raw: dict[str, Any] = copy.deepcopy(PLAIN)
    for _ in range(rng.randint(1, 3)):
        blocks = raw.get("prompt")
        if (
            not isinstance(blocks, list)
            or not blocks
            or not all(isinstance(b, dict) for b in blocks)
        ):
            break
        target: dict[str, Any] = raw if rng.random() < 0.3 else rng.choice(blocks)
        key = rng.choice([*target.keys(), *ODD_KEYS])
        if rng.random() < 0.2:
            target.pop(key, None)
        else:
            target[key] = rng.choice([*ODD_VALUES, copy.deepcopy(TEXT)])
    return raw


def test_whatever_is_read_by_hand_reads_the_same_against_the_schema() -> None:
    rng = random.Random(20261128)
    read_by_hand = 0
    for _ in range(3000):
        raw = _mutated(rng)
        plain = read_prompt(raw)
        if plain is not None:
            read_by_hand += 1
            assert plain == _schema_or_error(raw), raw
    assert read_by_hand > 100  # the mutations keep some prompts plain: the check has teeth


@pytest.mark.parametrize(
    ("raw", "plain"),
    [
        ({"sessionId": "s", "modeId": "plan"}, True),
        ({"sessionId": "s", "modeId": "plan", "_meta": {"x": 1}}, True),
        ({"sessionId": "s", "modeId": 3}, False),
        ({"sessionId": "s"}, False),
        ({"sessionId": "s", "modeId": "plan", "extra": True}, False),
    ],
)
def test_a_mode_is_read_by_hand_when_plain(raw: Any, plain: bool) -> None:
    read = read_mode(raw)
    assert (read is not None) is plain
    if read is not None:
        assert read == mode_by_schema(raw) == ModeParams("s", "plan")


@pytest.mark.parametrize(
    ("raw", "plain"),
    [
        ({"sessionId": "s", "configId": "model", "value": "openai:gpt"}, True),
        ({"sessionId": "s", "configId": "mode", "value": "plan", "_meta": {}}, True),
        ({"sessionId": "s", "configId": "flag", "type": "boolean", "value": True}, False),
        ({"sessionId": "s", "configId": "mode", "value": True}, False),
        ({"sessionId": "s", "configId": "mode"}, False),
        ({"sessionId": "s", "configId": "mode", "value": None}, False),
    ],
)
def test_an_option_is_read_by_hand_when_plain(raw: Any, plain: bool) -> None:
    read = read_option(raw)
    assert (read is not None) is plain
    if read is not None:
        assert read == option_by_schema(raw)
        assert isinstance(read, OptionParams)
