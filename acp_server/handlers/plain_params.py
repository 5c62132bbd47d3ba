"""``session/prompt``'s params: read by hand when plain, else against the wire models.

Validating against the generated wire models needs pydantic's schema of the whole protocol, built
the first time (~100 ms, more than the rest of a first prompt's own work). The prompts editors
send are plain: text and links to files, nothing else. Such a prompt is read here, by a table, to
exactly what the wire models would make of it. Anything else (images, audio, embedded resources,
annotations, a block's ``_meta``, a key not in the table, a value of another type, a null) goes
to the wire models, which also say precisely what is wrong with a prompt that is not valid.
"""

from __future__ import annotations

from typing import Any, NamedTuple, cast

from acp_server.jsonrpc.values import as_object

# A plain block's type -> (its required keys, every key it may have with that key's type). A
# value must be of the type itself (``type(v) is t``): a bool is no ``int`` here.
PLAIN_BLOCKS: dict[str, tuple[frozenset[str], dict[str, type]]] = {
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
# The request's own keys that a plain prompt may have (``messageId``: the rewind draft's).
PLAIN_REQUEST = frozenset({"sessionId", "prompt", "messageId", "_meta"})


class PromptParams(NamedTuple):
    """A valid ``session/prompt``: the session it names and its blocks in their wire form
    (camelCase keys, no nulls)."""

    session_id: str
    blocks: list[dict[str, Any]]


def read_plain(raw: Any) -> PromptParams | None:
    """``raw`` as a prompt when it is a plain one; None leaves it to ``read_by_schema``."""
    request = as_object(raw)
    if request is None or not request.keys() <= PLAIN_REQUEST:
        return None
    session_id, prompt, meta = request.get("sessionId"), request.get("prompt"), request.get("_meta")
    if type(session_id) is not str or type(prompt) is not list:
        return None
    if meta is not None and type(meta) is not dict:
        return None
    blocks = [_plain_block(block) for block in cast(list[Any], prompt)]
    if any(block is None for block in blocks):
        return None
    return PromptParams(session_id, cast(list[dict[str, Any]], blocks))


def _plain_block(raw: Any) -> dict[str, Any] | None:
    block = as_object(raw)
    if block is None:
        return None
    kind = block.get("type")
    shape = PLAIN_BLOCKS.get(kind) if type(kind) is str else None
    if shape is None:
        return None
    required, types = shape
    if not required <= block.keys():
        return None
    for key, value in block.items():
        if type(value) is not types.get(key):
            return None
    return dict(block)


def read_by_schema(raw: Any) -> PromptParams:
    """``raw`` validated against the wire models (loaded: ``ServerState.load_wire_models``); raises
    ``RpcError`` (invalid params) with what is wrong."""
    from acp_server.handlers import wire

    request = wire.prompt_request(raw)
    return PromptParams(request.session_id, [wire.dump(block) for block in request.prompt])
