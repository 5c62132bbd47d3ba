"""The pure parts of the tools: numbering and cutting reads, applying edits, previews."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.errors import ToolError
from agent_core.loop.preview import partial_arguments
from agent_core.tools import default_toolset
from agent_core.tools.base import FileTracker
from agent_core.tools.edit_file import Replacement, apply_edits
from agent_core.tools.read_file import number_lines
from agent_core.workspace import resolve


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
    }
    for tool in tools.values():
        schema = tool.arguments.model_json_schema()
        assert schema["type"] == "object" and tool.description
        assert tool.kind in ("read", "edit", "search", "execute", "think", "switch_mode")
        assert tool.title({}) and tool.title({"path": "a.py", "command": "ls", "pattern": "x"})
