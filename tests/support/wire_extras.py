"""What the fake LLM server speaks beside the streams: the models endpoints' answers in
Anthropic's and OpenAI's formats, and Bedrock's AWS event-stream frames."""

from __future__ import annotations

import base64
import json
import struct
import zlib


def bedrock_frame(event: bytes) -> bytes:
    """One AWS event-stream message carrying a Bedrock ``chunk`` event: a prelude (total and
    headers length, CRC32), string headers, the JSON payload ``{"bytes": <base64 event>}`` and
    a CRC32 of the whole."""
    fields = {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}
    head = b"".join(
        struct.pack(">B", len(k)) + k.encode() + struct.pack(">BH", 7, len(v)) + v.encode()
        for k, v in fields.items()
    )
    payload = json.dumps({"bytes": base64.b64encode(event).decode()}).encode()
    total = 12 + len(head) + len(payload) + 4
    prelude = struct.pack(">II", total, len(head))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    message = prelude + head + payload
    return message + struct.pack(">I", zlib.crc32(message))
