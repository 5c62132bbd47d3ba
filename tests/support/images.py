"""Real image files, written from scratch so the tests need no imaging library: a PNG (RGB,
a colour gradient) and a baseline JPEG (grey, every block's coefficients zero)."""

from __future__ import annotations

import struct
import zlib


def png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, payload: bytes) -> bytes:
        crc = zlib.crc32(kind + payload)
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    rows = b"".join(
        b"\0" + b"".join(bytes((x * 255 // width, y * 255 // height, 128)) for x in range(width))
        for y in range(height)
    )
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def jpeg(width: int, height: int) -> bytes:
    def segment(marker: int, payload: bytes) -> bytes:
        return struct.pack(">BBH", 0xFF, marker, len(payload) + 2) + payload

    one_code = bytes([1] + [0] * 15)  # a Huffman table with a single one-bit code, "0"
    blocks = -(-width // 8) * -(-height // 8)
    bits = 2 * blocks  # per block: DC difference category 0, then end of block
    scan = bytes(bits // 8) + (bytes([0xFF >> (bits % 8)]) if bits % 8 else b"")
    return (
        b"\xff\xd8"
        + segment(0xE0, b"JFIF\0\x01\x01\0" + struct.pack(">HH", 1, 1) + b"\0\0")
        + segment(0xDB, bytes([0]) + bytes([1] * 64))  # quantisation: all ones
        + segment(0xC0, struct.pack(">BHHB", 8, height, width, 1) + bytes([1, 0x11, 0]))
        + segment(0xC4, bytes([0x00]) + one_code + bytes([0x00]))  # DC: category 0
        + segment(0xC4, bytes([0x10]) + one_code + bytes([0x00]))  # AC: end of block
        + segment(0xDA, bytes([1, 1, 0x00, 0, 63, 0]))
        + scan
        + b"\xff\xd9"
    )
