"""Tool figures: search over a generated 50,000-file repository, and an edit's round trip."""

from __future__ import annotations

import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.figures import Figure
from tests.support.editor import FakeEditor

FILES = 50_000
SAMPLES = 5
NEEDLE = "heron_needle_token"
RG_FLAGS = [
    "--line-number",
    "--no-heading",
    "--color=never",
    "--max-columns=300",
    "--max-columns-preview",
]


def make_repository(root: Path) -> None:
    """500 directories of 100 small files; one file in 500 mentions the needle."""
    for d in range(FILES // 100):
        folder = root / f"pkg{d:03}"
        folder.mkdir()
        for f in range(100):
            n = d * 100 + f
            body = f"def function_{n}():\n    return {n}\n"
            if n % 500 == 0:
                body += f"# {NEEDLE} {n}\n"
            (folder / f"module_{f:02}.py").write_text(body)


def _scripted(
    env: dict[str, str], root: Path, replies: list[list[dict[str, Any]]]
) -> dict[str, str]:
    script = root.parent / "bench-script.json"
    script.write_text(
        json.dumps({"rules": [{"match": "", "replies": [*replies, [{"text": "ok"}]]}]})
    )
    return {**env, "HERON_MODEL": f"scripted:{script}", "HERON_MODE": "accept-edits"}


def _tool_seconds(editor: FakeEditor, session_id: str) -> float:
    """Run one prompt; the time from its tool call's `in_progress` to its final status."""
    start = len(editor.arrivals)
    editor.prompt(session_id, "go")
    times = {}
    for at, message in editor.arrivals[start:]:
        status = message.get("params", {}).get("update", {}).get("status")
        if status in ("in_progress", "completed", "failed"):
            times[status if status == "in_progress" else "done"] = at
    return times["done"] - times["in_progress"]


def search_versus_ripgrep(env: dict[str, str]) -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        make_repository(root)
        from agent_core.tools.ripgrep import rg_binary

        direct = []
        for _ in range(SAMPLES):
            started = time.perf_counter()
            subprocess.run(
                [rg_binary(), *RG_FLAGS, "--regexp", NEEDLE],
                cwd=root,
                capture_output=True,
                check=True,
            )
            direct.append(time.perf_counter() - started)
        call = [{"tool_call": {"name": "search", "arguments": {"pattern": NEEDLE}}}]
        with FakeEditor(_scripted(env, root, [call]), check_schema=False) as editor:
            editor.initialize()
            heron = []
            for _ in range(SAMPLES):
                heron.append(_tool_seconds(editor, editor.new_session(root)))
    tool_ms, rg_ms = statistics.median(heron) * 1000, statistics.median(direct) * 1000
    ratio = tool_ms / rg_ms
    how = f"{FILES:,} files, median of {SAMPLES}: tool call {tool_ms:.0f} ms, `rg` {rg_ms:.0f} ms"
    return [Figure("search tool vs ripgrep directly", ratio, "x", 1.3, how)]


def edit_round_trip(env: dict[str, str]) -> list[Figure]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        target = root / "app.py"
        replies = []
        for i in range(SAMPLES):
            replies.append([{"tool_call": {"name": "read_file", "arguments": {"path": "app.py"}}}])
            edit = {"old_string": f"value = {i}", "new_string": f"value = {i + 1}"}
            replies.append(
                [
                    {
                        "tool_call": {
                            "name": "edit_file",
                            "arguments": {"path": "app.py", "edits": [edit]},
                        }
                    }
                ]
            )
        times = []
        for i in range(SAMPLES):
            target.write_text(f"value = {i}\n" + "x = 1\n" * 200)
            script = [replies[2 * i], replies[2 * i + 1]]
            with FakeEditor(_scripted(env, root, script), check_schema=False) as editor:
                editor.initialize()
                session_id = editor.new_session(root)
                start = len(editor.arrivals)
                editor.prompt(session_id, "edit")
                marks = [
                    (at, m["params"]["update"])
                    for at, m in editor.arrivals[start:]
                    if m.get("method") == "session/update" and m["params"]["update"].get("status")
                ]
                edit_id = [u["toolCallId"] for _, u in marks if u.get("status") == "completed"][-1]
                began = next(
                    at
                    for at, u in marks
                    if u["toolCallId"] == edit_id and u["status"] == "in_progress"
                )
                ended = next(
                    at
                    for at, u in marks
                    if u["toolCallId"] == edit_id and u["status"] == "completed"
                )
                times.append(ended - began)
    how = f"accept-edits mode, read and write through the editor (fs/*); median of {SAMPLES}"
    return [
        Figure(
            "edit round trip (diff shown, written through the editor)",
            statistics.median(times) * 1000,
            "ms",
            None,
            how,
        )
    ]


def measure(env: dict[str, str]) -> list[Figure]:
    return search_versus_ripgrep(env) + edit_round_trip(env)
