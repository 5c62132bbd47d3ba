"""Image files a model can be shown: recognised by their first bytes (never by the name), with
their size in pixels read from the header, and the limits the providers put on them.

PNG, JPEG, GIF and WebP are the formats the Anthropic and OpenAI APIs (and the vision models
behind Chat Completions servers) all take. Anthropic refuses an image over 5 MB once
base64-encoded or over 8000 pixels on a side, the strictest of the limits, so those hold for all.
"""

from __future__ import annotations

import base64
import struct
from pathlib import Path

from msgspec import Struct

from agent_core.safety.safe_open import UnsafeFile, open_regular

MAX_IMAGE_BYTES = 3_750_000  # 5,000,000 once base64-encoded
MAX_IMAGE_SIDE = 8000
FORMATS: tuple[tuple[bytes, int, str, str], ...] = (  # signature, offset, MIME type, name
    (b"\x89PNG\r\n\x1a\n", 0, "image/png", "PNG"),
    (b"\xff\xd8\xff", 0, "image/jpeg", "JPEG"),
    (b"GIF87a", 0, "image/gif", "GIF"),
    (b"GIF89a", 0, "image/gif", "GIF"),
    (b"WEBP", 8, "image/webp", "WebP"),
)
HEAD_BYTES = 16  # enough for every signature above
# JPEG start-of-frame markers (which carry the size): C0-CF but DHT, JPG and DAC.
JPEG_FRAMES = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


class Picture(Struct, frozen=True):
    mime_type: str
    name: str  # "PNG"
    width: int | None = None  # None: the header could not be read
    height: int | None = None

    def describe(self, size: int) -> str:
        """Like "PNG image, 640×480 pixels, 12,345 bytes"."""
        pixels = f", {self.width}×{self.height} pixels" if self.width and self.height else ""
        return f"{self.name} image{pixels}, {size:,} bytes"

    @property
    def too_large(self) -> bool:
        return max(self.width or 0, self.height or 0) > MAX_IMAGE_SIDE


class ImageFile(Struct, frozen=True):
    picture: Picture
    size: int  # bytes on disk
    data: str | None  # base64; None when the file is over MAX_IMAGE_BYTES


def kind(head: bytes) -> tuple[str, str] | None:
    """(MIME type, name) of the image format ``head`` starts, or None."""
    for signature, offset, mime, name in FORMATS:
        if head[offset : offset + len(signature)] == signature:
            if name == "WebP" and head[:4] != b"RIFF":
                continue
            return mime, name
    return None


def sniff(data: bytes) -> Picture | None:
    """The picture ``data`` holds, with its size in pixels when the header gives it."""
    found = kind(data[:HEAD_BYTES])
    if found is None:
        return None
    mime, name = found
    try:
        width, height = SIZES[name](data)
    except (struct.error, IndexError, ValueError):
        width = height = None
    return Picture(mime, name, width, height)


def load(path: Path) -> ImageFile | None:
    """``path`` as an image for a model, or None if it is not one (or cannot be opened: the
    text reader then says why). Blocking: run it in a worker thread."""
    try:
        with open_regular(path) as file:  # a FIFO named like a picture must not hang the turn
            head = file.read(HEAD_BYTES)
            if kind(head) is None:
                return None
            data = head + file.read(MAX_IMAGE_BYTES + 1 - len(head))
            size = path.stat().st_size if len(data) > MAX_IMAGE_BYTES else len(data)
    except (OSError, UnsafeFile):
        return None
    picture = sniff(data)
    if picture is None:
        return None
    if size > MAX_IMAGE_BYTES:
        return ImageFile(picture, size, None)
    return ImageFile(picture, size, base64.b64encode(data).decode("ascii"))


def _png(data: bytes) -> tuple[int | None, int | None]:
    if data[12:16] != b"IHDR":
        return None, None
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _gif(data: bytes) -> tuple[int | None, int | None]:
    width, height = struct.unpack("<HH", data[6:10])
    return width, height


def _webp(data: bytes) -> tuple[int | None, int | None]:
    chunk = data[12:16]
    if chunk == b"VP8 ":  # lossy: 14-bit sizes after the frame tag and start code
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":  # lossless: 14-bit sizes less one, packed after the signature byte
        (bits,) = struct.unpack("<I", data[21:25])
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":  # extended: 24-bit canvas sizes less one
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    return None, None


def _jpeg(data: bytes) -> tuple[int | None, int | None]:
    """Walk the segments to the start of frame; markers without a length carry no size."""
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None, None
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0x01, *range(0xD0, 0xDA)):  # standalone markers
            at += 2
            continue
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        if marker in JPEG_FRAMES:
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return width, height
        at += 2 + length
    return None, None


SIZES = {"PNG": _png, "JPEG": _jpeg, "GIF": _gif, "WebP": _webp}
