"""Request bodies made once per message: a long conversation costs a join, not a rebuild.

The official SDKs' ``create`` methods walk the whole request body on every call (the openai
SDK's type-directed transform, the anthropic SDK's copy that looks for file inputs). In a
200-turn session that walk was most of the agent's time per round trip, and it grew with every
turn. So the adapters make the body themselves, as JSON bytes, and give it to the SDK's ``post``
as its content: the SDK still sends it, retries, and parses the stream. Each message is turned
into JSON once, when it first appears in the history; later requests reuse that and join.

The adapters read the stream the same way: the SDK decodes its events (and raises on an error
event), and each is read as a plain JSON object (``json_text.json_object``) rather than made
into an SDK model, which was the largest part of a round trip's own time (and, for Anthropic,
a first prompt's one-off build of the SDK's event models).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from agent_core.files.json_text import compact_json
from agent_core.messages import Message

Encoded = TypeVar("Encoded")

JSON_HEADERS = {"Content-Type": "application/json"}


def dumps(value: Any) -> bytes:
    """Compact UTF-8 JSON (``json_text.compact_json``)."""
    return compact_json(value).encode()


class EncodedHistory(Generic[Encoded]):
    """Each message's JSON (its items, comma-joined, or more an adapter needs with it), kept
    while the history keeps the same message objects at the same places: the history only
    grows at its end, and its last message may be replaced (a user message that took more
    parts), so a request encodes the new messages only."""

    def __init__(self, encode: Callable[[Message], Encoded]) -> None:
        self._encode = encode
        self._seen: list[tuple[Message, Encoded]] = []

    def fragments(self, history: Sequence[Message]) -> list[Encoded]:
        seen = self._seen
        out: list[Encoded] = []
        for index, message in enumerate(history):
            if index < len(seen) and seen[index][0] is message:
                out.append(seen[index][1])
                continue
            del seen[index:]
            encoded = self._encode(message)
            seen.append((message, encoded))
            out.append(encoded)
        del seen[len(history) :]
        return out


def items(values: Sequence[Any]) -> bytes:
    """The JSON of ``values`` without the brackets: one message's share of an array."""
    return b",".join(dumps(value) for value in values)


def with_array(head: Mapping[str, Any], key: str, fragments: Sequence[bytes]) -> bytes:
    """``head`` as a JSON object with ``key`` added: the array of the pre-encoded fragments."""
    opening = dumps(dict(head))[:-1]  # without its closing brace
    comma = b"," if len(opening) > 1 else b""
    array = b",".join(fragment for fragment in fragments if fragment)
    return b"%s%s%s:[%s]}" % (opening, comma, dumps(key), array)
