"""The params of ``session/prompt``, ``session/set_mode`` and ``session/set_config_option``:
read by hand when plain, else against the wire models.

Validating against the generated wire models needs pydantic's schema of the whole protocol, built
the first time (~100 ms, more than the rest of a first prompt's own work, and 2.5 MB kept). What
editors send is plain: a prompt of text and links to files, a mode's id, an option's value. Such
params are read here, by tables, to exactly what the wire models would make of them. Anything else
(images, audio, embedded resources, annotations, a block's ``_meta``, a key not in the table, a
value of another type, a null) goes to the wire models (``by_schema``), which also say precisely
what is wrong with params that are not valid.
"""

from __future__ import annotations

from typing import Any, NamedTuple, cast

from acp_server.jsonrpc.values import as_object

# Keys -> the type a plain value has (``type(v) is t``: a bool is no ``int`` here, a float is
# no ``int``). A key absent from a shape is not plain; ``required`` keys must be present.
Shape = tuple[frozenset[str], dict[str, type]]

PLAIN_BLOCKS: dict[str, Shape] = {  # a prompt's block, by its type
    "text": (frozenset({"type", "text"}), {"type": str, "text": str}),
    "resource_link": (
        frozenset({"type", "uri", "name"}),
        {
            "type": str,
            "uri": str,
            "name": str,
            "title": str,
            "description": str,
            "mimeType": str,
            "size": int,
        },
    ),
}
PROMPT: Shape = (  # ``messageId``: the rewind draft's
    frozenset({"sessionId", "prompt"}),
    {"sessionId": str, "prompt": list, "messageId": str, "_meta": dict},
)
MODE: Shape = (
    frozenset({"sessionId", "modeId"}),
    {"sessionId": str, "modeId": str, "_meta": dict},
)
VALUE_ID: Shape = (  # an option set to one of its values (no ``type``, as the schema's default)
    frozenset({"sessionId", "configId", "value"}),
    {"sessionId": str, "configId": str, "value": str, "_meta": dict},
)


class PromptParams(NamedTuple):
    """A valid ``session/prompt``: the session it names and its blocks in their wire form
    (camelCase keys, no nulls)."""

    session_id: str
    blocks: list[dict[str, Any]]


class ModeParams(NamedTuple):
    session_id: str
    mode_id: str


class OptionParams(NamedTuple):
    """A valid ``session/set_config_option``: a value id, or a boolean for a boolean option."""

    session_id: str
    config_id: str
    value: str | bool


def read_prompt(raw: Any) -> PromptParams | None:
    """``raw`` as a prompt when it is a plain one; None leaves it to ``prompt_by_schema``."""
    request = _plain(raw, PROMPT)
    if request is None:
        return None
    blocks = [_plain_block(block) for block in request["prompt"]]
    if any(block is None for block in blocks):
        return None
    return PromptParams(request["sessionId"], cast(list[dict[str, Any]], blocks))


def read_mode(raw: Any) -> ModeParams | None:
    request = _plain(raw, MODE)
    return None if request is None else ModeParams(request["sessionId"], request["modeId"])


def read_option(raw: Any) -> OptionParams | None:
    request = _plain(raw, VALUE_ID)
    if request is None:
        return None
    return OptionParams(request["sessionId"], request["configId"], request["value"])


def _plain_block(raw: Any) -> dict[str, Any] | None:
    block = as_object(raw)
    kind = block.get("type") if block is not None else None
    shape = PLAIN_BLOCKS.get(kind) if type(kind) is str else None
    return None if shape is None else _plain(block, shape)


def _plain(raw: Any, shape: Shape) -> dict[str, Any] | None:
    """``raw`` (a copy) when it is an object of ``shape``, else None."""
    found = as_object(raw)
    required, types = shape
    if found is None or not required <= found.keys():
        return None
    for key, value in found.items():
        if type(value) is not types.get(key):
            return None
    return dict(found)


# The same params validated against the wire models (loaded first: ``ServerState.by_schema``);
# each raises ``RpcError`` (invalid params) with what is wrong.


def prompt_by_schema(raw: Any) -> PromptParams:
    from acp_server.handlers import wire

    request = wire.prompt_request(raw)
    return PromptParams(request.session_id, [wire.dump(block) for block in request.prompt])


def mode_by_schema(raw: Any) -> ModeParams:
    from acp_server.handlers import wire

    request = wire.set_mode_request(raw)
    return ModeParams(request.session_id, request.mode_id)


def option_by_schema(raw: Any) -> OptionParams:
    from acp_server.handlers import wire

    request = wire.set_config_option_request(raw)
    return OptionParams(request.session_id, request.config_id, request.value)
