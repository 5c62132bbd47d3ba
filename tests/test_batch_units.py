"""`heron batch`'s parts on their own: TASKS.jsonl read and checked, shards, a run's summary row
read from the `heron exec --json` stream, the table, and a task's workspace (a folder copied, a
repository checked out at a commit, the diff of a run) on real files and real git."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from acp_server.batch.progress import Progress, table
from acp_server.batch.results import Ending, from_json, to_result, tokens
from acp_server.batch.tasks import (
    Defaults,
    Shard,
    Task,
    TaskFileError,
    parse_shard,
    parse_tasks,
    with_defaults,
)
from acp_server.batch.workspace import (
    Changes,
    WorkspaceError,
    check_out,
    copy_folder,
    forget_checkpoints,
)
from agent_core.checkpoints.shadow import ShadowRepository
from tests.support.repositories import git, repository

BASE = Path("/batch")


def lines(*tasks: object) -> list[str]:
    return [t if isinstance(t, str) else json.dumps(t) for t in tasks]


# -- TASKS.jsonl ----------------------------------------------------------------------------


def test_tasks_are_read_with_paths_from_the_file_and_the_flags_filling_in() -> None:
    read = parse_tasks(
        lines(
            {"id": "a", "prompt": "fix it", "workspace": "projects/a"},
            "",
            {
                "id": "b.2",
                "prompt": "go",
                "repository": "/src/b",
                "commit": "v1.0",
                "model": "scripted:echo",
                "mode": "plan",
                "timeout": 5,
            },
        ),
        BASE,
    )
    assert read[0] == Task("a", "fix it", 1, workspace=BASE / "projects/a")
    assert read[1] == Task(
        "b.2", "go", 3, repository=Path("/src/b"), commit="v1.0", model="scripted:echo",
        mode="plan", timeout=5.0,
    )  # fmt: skip
    flags = Defaults(mode="accept-edits", model="scripted:demo", timeout=60.0)
    filled = [with_defaults(task, flags) for task in read]
    assert (filled[0].mode, filled[0].model, filled[0].timeout) == (
        "accept-edits",
        "scripted:demo",
        60.0,
    )
    assert (filled[1].mode, filled[1].model, filled[1].timeout) == ("plan", "scripted:echo", 5.0)


def test_every_bad_line_is_named_in_one_error() -> None:
    with pytest.raises(TaskFileError) as caught:
        parse_tasks(
            lines(
                {"id": "ok", "prompt": "p", "workspace": "w"},
                "{not json",
                {"id": "no-prompt", "workspace": "w"},
                {"id": "both", "prompt": "p", "workspace": "w", "repository": "r", "commit": "c"},
                {"id": "OK", "prompt": "p", "workspace": "w"},
                {"id": "typo", "prompt": "p", "workspace": "w", "timout": 5},
                {"id": "../up", "prompt": "p", "workspace": "w"},
                {"id": "mode", "prompt": "p", "workspace": "w", "mode": "yolo"},
                {"id": "slow", "prompt": "p", "workspace": "w", "timeout": -1},
                {"id": "nocommit", "prompt": "p", "repository": "r"},
                {"id": "flag", "prompt": "p", "repository": "r", "commit": "--upload-pack=x"},
                "[1, 2]",
            ),
            BASE,
            "tasks.jsonl",
        )
    said = str(caught.value).splitlines()
    assert [line.split(":", 1)[0] for line in said] == [
        f"tasks.jsonl line {n}" for n in range(2, 13)
    ]
    assert "not JSON" in said[0]
    assert "no prompt" in said[1]
    assert "either workspace" in said[2]
    assert "already line 1's" in said[3]
    assert "'timout'" in said[4]
    assert "names the task's folder" in said[5]
    assert "'yolo'" in said[6]
    assert "timeout" in said[7]
    assert "needs commit" in said[8] and "needs commit" in said[9]
    assert "JSON object" in said[10]


def test_allow_dangerous_is_a_task_s_or_the_flag_s() -> None:
    read = parse_tasks(
        lines(
            {"id": "a", "prompt": "p", "workspace": "w", "allow_dangerous": True},
            {"id": "b", "prompt": "p", "workspace": "w", "allow_dangerous": False},
            {"id": "c", "prompt": "p", "workspace": "w"},
        ),
        BASE,
    )
    flags = Defaults(allow_dangerous=True)
    assert [with_defaults(t, flags).allow_dangerous for t in read] == [True, False, True]
    assert [with_defaults(t, Defaults()).allow_dangerous for t in read] == [True, False, False]
    with pytest.raises(TaskFileError, match="line 1: allow_dangerous must be true or false"):
        parse_tasks(lines({"id": "a", "prompt": "p", "workspace": "w", "allow_dangerous": 1}), BASE)


def test_a_file_without_tasks_is_an_error() -> None:
    with pytest.raises(TaskFileError, match="no task"):
        parse_tasks(["", "  "], BASE)


def test_shards_cover_every_task_once() -> None:
    tasks = [Task(f"t{n}", "p", n) for n in range(7)]
    for count in (1, 2, 3, 7, 9):
        picked = [t.id for i in range(count) for t in parse_shard(f"{i}/{count}").pick(tasks)]
        assert sorted(picked) == sorted(t.id for t in tasks)
    assert [t.id for t in Shard(1, 3).pick(tasks)] == ["t1", "t4"]


@pytest.mark.parametrize("text", ["2/2", "1", "a/b", "0/0", "-1/2", "1/-2"])
def test_a_bad_shard_is_an_error(text: str) -> None:
    with pytest.raises(TaskFileError, match="--shard"):
        parse_shard(text)


# -- a run's summary row ----------------------------------------------------------------------

START = {"type": "start", "sessionId": "s-1", "cwd": "/w", "model": "scripted:echo"}
UPDATE = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}


def result_line(**given: object) -> dict[str, object]:
    said: dict[str, object] = {
        "type": "result",
        "sessionId": "s-1",
        "stopReason": "end_turn",
        "exitCode": 0,
        "error": None,
        "usage": {"inputTokens": 100, "outputTokens": 20},
        "cost": {"amount": 0.25, "currency": "USD"},
        "requests": 2,
        "toolCalls": 1,
        "durationMs": 900,
        "answer": "hi",
    }
    return {**said, **given}


def test_a_run_that_ended_well_is_done_with_its_figures() -> None:
    stream = lines(START, UPDATE, result_line())
    row = to_result("a", stream, Ending(0, timed_out=False, seconds=1.23456))
    assert (row.status, row.exit_code, row.stop_reason, row.error) == ("done", 0, "end_turn", None)
    assert (row.requests, row.tool_calls, row.tokens, row.cost, row.currency) == (
        2,
        1,
        120,
        0.25,
        "USD",
    )
    assert (row.session_id, row.seconds) == ("s-1", 1.235)
    assert from_json(row.to_json()) == row


def test_a_failed_run_says_why_from_its_result_or_its_stderr() -> None:
    said = lines(START, result_line(exitCode=1, stopReason=None, error="the model failed"))
    row = to_result("a", said, Ending(1, timed_out=False, seconds=1))
    assert (row.status, row.error) == ("failed", "the model failed")
    crashed = to_result("a", lines(START), Ending(3, False, 1, "Traceback\nBoom: it broke\n"))
    assert crashed.status == "failed"
    assert crashed.error == "heron exec exited 3 (stopped for lack of approval): Boom: it broke"
    assert crashed.session_id == "s-1"
    killed = to_result("a", ['{"type": "sta'], Ending(-9, timed_out=False, seconds=1))
    assert (killed.status, killed.exit_code, killed.session_id) == ("failed", None, None)
    assert killed.error == "killed by signal 9"


def test_a_run_past_its_limit_is_timed_out_with_or_without_a_result() -> None:
    stopped = lines(START, result_line(exitCode=130, stopReason="cancelled"))
    row = to_result("a", stopped, Ending(130, timed_out=True, seconds=2.6, limit_s=2))
    assert (row.status, row.stop_reason) == ("timed_out", "cancelled")
    assert row.error == "stopped at its time limit of 2 s"
    killed = to_result("a", lines(START), Ending(-9, timed_out=True, seconds=7, limit_s=1.5))
    assert (killed.status, killed.exit_code) == ("timed_out", None)
    assert killed.error == "stopped at its time limit of 1.5 s (killed: no result)"


def test_tokens_are_read_in_either_spelling() -> None:
    assert tokens({"totalTokens": 7, "inputTokens": 1}) == 7
    assert tokens({"input_tokens": 3, "output_tokens": 4}) == 7
    assert tokens({"other": 1}) is None
    assert tokens(None) is None


def test_a_damaged_result_file_is_no_result() -> None:
    assert from_json("{") is None
    assert from_json('{"id": "a"}') is None
    row = to_result("a", [], Ending(0, False, 1))
    assert from_json(row.to_json().replace('"done"', '"half"')) is None


def test_the_table_has_a_row_per_task_and_the_errors_below() -> None:
    done = to_result("first", lines(START, result_line()), Ending(0, False, 1.5))
    failed = to_result("second", [], Ending(1, False, 0.5, "no model\n"))
    text = table([done, failed]).splitlines()
    assert text[0].split() == [
        "id", "status", "exit", "stop", "requests", "tools", "tokens", "cost", "seconds",
    ]  # fmt: skip
    assert text[1].split() == [
        "first",
        "done",
        "0",
        "end_turn",
        "2",
        "1",
        "120",
        "0.2500",
        "USD",
        "1.5",
    ]
    assert text[2].split() == ["second", "failed", "1", "-", "0", "0", "-", "-", "0.5"]
    assert text[4] == "second: heron exec exited 1 (failed): no model"


# -- workspaces --------------------------------------------------------------------------------


def test_a_folder_is_copied_with_links_kept_and_without_fifos_or_the_output(
    tmp_path: Path,
) -> None:
    source = tmp_path / "source"
    (source / "src").mkdir(parents=True)
    (source / "src" / "app.py").write_text("print('hi')\n")
    (source / "link").symlink_to("/etc/hostname")
    os.mkfifo(source / "pipe")  # opening it would wait for ever
    (source / "runs" / "a").mkdir(parents=True)  # the batch's output, inside the source
    copy = tmp_path / "scratch" / "a" / "workspace"
    copy_folder(source, copy, skip=source / "runs")
    assert sorted(p.name for p in copy.iterdir()) == ["link", "src"]
    assert (copy / "link").is_symlink() and os.readlink(copy / "link") == "/etc/hostname"
    assert (copy / "src" / "app.py").read_text() == "print('hi')\n"


def test_a_folder_that_cannot_be_read_fails_with_the_path(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="cannot copy"):
        copy_folder(tmp_path / "missing", tmp_path / "copy", skip=tmp_path / "out")


def test_a_repository_is_checked_out_at_the_commit_without_running_its_hooks(
    tmp_path: Path,
) -> None:
    source = tmp_path / "source"
    first, _ = repository(source, {"a.txt": "one\n"}, {"a.txt": "two\n"})
    marker = tmp_path / "hook-ran"
    hook = source / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    copy = tmp_path / "scratch" / "a" / "workspace"
    check_out(source, first, copy, dict(os.environ))
    assert (copy / "a.txt").read_text() == "one\n"
    assert git("rev-parse", "HEAD", cwd=copy).strip() == first
    assert not marker.exists()
    with pytest.raises(WorkspaceError, match="git checkout failed"):
        check_out(source, "no-such-commit", tmp_path / "other" / "workspace", dict(os.environ))


def test_the_diff_of_a_run_is_binary_safe_and_applies_to_the_copy_before_it(
    tmp_path: Path,
) -> None:
    copy = tmp_path / "copy"
    (copy / "src").mkdir(parents=True)
    (copy / "src" / "app.py").write_text("print('hi')\n")
    (copy / "gone.txt").write_text("bye\n")
    (copy / ".gitignore").write_text("build/\n")
    changes = Changes(tmp_path / "shadow", copy, dict(os.environ))
    changes.before()
    original = tmp_path / "original"
    copy_folder(copy, original, skip=tmp_path / "none")
    (copy / "src" / "app.py").write_text("print('hello')\n")
    (copy / "gone.txt").unlink()
    (copy / "logo.bin").write_bytes(bytes(range(256)) * 4)
    (copy / "build").mkdir()
    (copy / "build" / "out.o").write_text("ignored")
    patch = changes.patch()
    assert b"GIT binary patch" in patch and b"build/" not in patch
    (tmp_path / "diff.patch").write_bytes(patch)
    git("apply", str(tmp_path / "diff.patch"), cwd=original)
    assert (original / "src" / "app.py").read_text() == "print('hello')\n"
    assert not (original / "gone.txt").exists()
    assert (original / "logo.bin").read_bytes() == bytes(range(256)) * 4


def test_an_unchanged_copy_has_an_empty_diff(tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "a.txt").write_text("a\n")
    changes = Changes(tmp_path / "shadow", copy, dict(os.environ))
    changes.before()
    assert changes.patch() == b""


def test_the_checkpoints_heron_kept_of_a_copy_are_removed_with_it(tmp_path: Path) -> None:
    home, copy = tmp_path / "home", tmp_path / "copy"
    copy.mkdir()
    (copy / "a.txt").write_text("a\n")
    shadow = ShadowRepository(home, copy, dict(os.environ), max_file_size=1000, max_files=10)
    with shadow.locked():
        shadow.snapshot()
    assert shadow.exists()
    forget_checkpoints(home, copy, dict(os.environ))
    assert not shadow.path.exists()
    assert list((home / "checkpoints").iterdir()) == []


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_a_line_per_task_in_a_log_and_a_bar_on_a_terminal() -> None:
    done = to_result("a", lines(START, result_line()), Ending(0, False, 1.5))
    hung = to_result("b", lines(START), Ending(-9, True, 2.0, limit_s=2))
    log = io.StringIO()
    progress = Progress(log, 3, [done])
    progress.begin(2, 2)
    progress.started()
    progress.finished(hung)
    progress.end()
    said = log.getvalue().splitlines()
    assert said[0] == "heron batch: 3 task(s), 1 already recorded; 2 to run, 2 at once"
    assert (
        said[1]
        == "[2/3] b timed_out in 2.0 s: stopped at its time limit of 2 s (killed: no result)"
    )
    assert said[2].startswith("heron batch: 1 done, 0 failed, 1 timed out in ")
    assert len(said) == 3
    screen = Terminal()
    progress = Progress(screen, 2, [])
    progress.begin(2, 2)
    progress.started()
    progress.started()
    assert progress.bar().startswith(
        "[" + "." * 24 + "] 0/2  0 done, 0 failed, 0 timed out, 2 running"
    )
    progress.finished(done)
    assert progress.bar().startswith("[" + "#" * 12 + "." * 12 + "] 1/2  1 done")
    assert "[1/2] a done" not in screen.getvalue()  # on a terminal, the bar says it
    progress.finished(hung)
    assert "\r\x1b[2K[2/2] b timed_out" in screen.getvalue()
