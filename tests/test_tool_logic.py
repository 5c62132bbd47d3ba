"""The pure parts of the tools: numbering and cutting reads, applying edits, previews."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_core.errors import ToolError
from agent_core.loop.preview import partial_arguments
from agent_core.ports.workspace import resolve
from agent_core.tools import default_toolset
from agent_core.tools.base import FileTracker
from agent_core.tools.edit_file import Replacement, apply_edits
from agent_core.tools.images import MAX_IMAGE_BYTES, MAX_IMAGE_SIDE, Picture, load, sniff
from agent_core.tools.read_file import number_lines
from tests.support.images import jpeg, png


def test_reads_are_numbered_and_say_where_to_continue() -> None:
    text = "\n".join(f"line {i}" for i in range(1, 11))
    assert (
        number_lines(text, 1, 3)
        == "     1\tline 1\n     2\tline 2\n     3\tline 3\n(showing lines 1-3 of 10; read on with offset=4)"
    )
    assert number_lines(text, 9, 5).endswith("    10\tline 10")
    assert number_lines(text, 20, 5) == "(the file has only 10 lines)"
    assert number_lines("", 1, 5) == "(empty file)"


def test_huge_reads_are_cut_with_a_note() -> None:
    text = "\n".join("x" * 1000 for _ in range(500))
    out = number_lines(text, 1, 500)
    assert len(out) < 110_000 and "read on with offset=" in out.splitlines()[-1]


def test_edits_apply_in_order_and_explain_failures() -> None:
    text = "a = 1\nb = 2\nb = 2\n"
    assert (
        apply_edits(text, [Replacement(old_string="a = 1", new_string="a = 10")], "f")
        == "a = 10\nb = 2\nb = 2\n"
    )
    assert (
        apply_edits(
            text, [Replacement(old_string="b = 2", new_string="b = 3", replace_all=True)], "f"
        )
        == "a = 1\nb = 3\nb = 3\n"
    )
    chained = [
        Replacement(old_string="a = 1", new_string="c = 1"),
        Replacement(old_string="c = 1", new_string="d = 1"),
    ]
    assert apply_edits(text, chained, "f").startswith("d = 1")
    with pytest.raises(ToolError, match="occurs 2 times"):
        apply_edits(text, [Replacement(old_string="b = 2", new_string="x")], "f")
    with pytest.raises(ToolError, match="edit 2, old_string was not found"):
        apply_edits(
            text,
            [
                Replacement(old_string="a = 1", new_string="x"),
                Replacement(old_string="zzz", new_string="y"),
            ],
            "f",
        )


def test_the_stale_read_guard() -> None:
    files = FileTracker()
    assert files.stale(Path("/w/a"), "x") == "Read /w/a before editing it."
    files.saw(Path("/w/a"), "x")
    assert files.stale(Path("/w/a"), "x") is None
    assert "changed since you last read it" in (files.stale(Path("/w/a"), "y") or "")


def test_paths_resolve_symlinks_before_the_roots_check(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "link").symlink_to(outside)
    assert resolve("src/a.py", (root,)) == (root / "src" / "a.py", True)
    assert resolve("link/x", (root,)) == (outside / "x", False)
    assert resolve("../outside/x", (root,)) == (outside / "x", False)
    assert resolve(str(outside / "x"), (root, outside)) == (outside / "x", True)


def test_partial_arguments_preview_streaming_json() -> None:
    assert partial_arguments('{"path": "src/ap') == {"path": "src/ap"}
    assert partial_arguments('{"edits": [{"old_string": "a"') == {"edits": [{"old_string": "a"}]}
    assert partial_arguments("not json") is None


def test_every_tool_has_a_schema_a_kind_and_a_title_for_partial_arguments() -> None:
    tools = default_toolset()
    assert set(tools) == {
        "diagnostics",
        "read_file",
        "edit_file",
        "write_file",
        "search",
        "find_files",
        "terminal",
        "process",
        "todo",
        "switch_mode",
        "session_search",
        "clarify",
        "web_fetch",
        "web_search",
    }
    for tool in tools.values():
        schema = tool.arguments.model_json_schema()
        assert schema["type"] == "object" and tool.description
        kinds = ("read", "edit", "search", "execute", "think", "switch_mode", "fetch", "other")
        assert tool.kind in kinds
        assert tool.title({}) and tool.title({"path": "a.py", "command": "ls", "pattern": "x"})


def test_images_are_known_by_their_first_bytes_with_their_size_in_pixels() -> None:
    webp = b"RIFF\0\0\0\0WEBP"
    assert sniff(png(40, 30)) == Picture("image/png", "PNG", 40, 30)
    assert sniff(jpeg(24, 16)) == Picture("image/jpeg", "JPEG", 24, 16)
    assert sniff(b"GIF89a\x0a\x00\x05\x00" + bytes(8)) == Picture("image/gif", "GIF", 10, 5)
    lossy = webp + b"VP8 " + bytes(10) + (300).to_bytes(2, "little") + (200).to_bytes(2, "little")
    assert sniff(lossy) == Picture("image/webp", "WebP", 300, 200)
    bits = (300 - 1) | ((200 - 1) << 14)
    lossless = webp + b"VP8L" + bytes(5) + bits.to_bytes(4, "little")
    assert sniff(lossless) == Picture("image/webp", "WebP", 300, 200)
    extended = webp + b"VP8X" + bytes(8) + (299).to_bytes(3, "little") + (199).to_bytes(3, "little")
    assert sniff(extended) == Picture("image/webp", "WebP", 300, 200)
    assert sniff(png(40, 30)[:20]) == Picture("image/png", "PNG")  # header cut: no size
    assert sniff(b"\xff\xd8\xff\xe0 garbage") == Picture("image/jpeg", "JPEG")
    for other in (b"BM\x36\x00", b"RIFF\0\0\0\0WAVE", b"<svg xmlns=", b"# README\n", b""):
        assert sniff(other) is None
    assert (
        Picture("image/png", "PNG", 40, 30).describe(1234) == "PNG image, 40×30 pixels, 1,234 bytes"
    )
    assert Picture("image/png", "PNG").describe(5) == "PNG image, 5 bytes"
    assert Picture("image/png", "PNG", MAX_IMAGE_SIDE + 1, 10).too_large


def test_an_image_file_loads_within_the_limits(tmp_path: Path) -> None:
    (tmp_path / "shot").write_bytes(png(8, 8))  # no extension: the bytes tell
    (tmp_path / "big.png").write_bytes(png(2, 2) + bytes(MAX_IMAGE_BYTES))
    (tmp_path / "notes.md").write_text("# not an image\n")
    shot = load(tmp_path / "shot")
    assert shot is not None and shot.size == len(png(8, 8)) and shot.data is not None
    big = load(tmp_path / "big.png")
    assert big is not None and big.data is None and big.size == len(png(2, 2)) + MAX_IMAGE_BYTES
    assert load(tmp_path / "notes.md") is None
    assert load(tmp_path / "missing.png") is None  # the text reader says why
    assert load(tmp_path) is None


def test_a_fifo_named_like_an_image_is_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "shot.png")
    assert load(tmp_path / "shot.png") is None  # the text reader then says why
