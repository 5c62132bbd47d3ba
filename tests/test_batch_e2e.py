"""`heron batch` end to end: the real command over a real TASKS.jsonl, each task a real `heron
exec --json` process with the scripted model, in a copy of a real folder or repository.

Six tasks, three at once: three answer, one writes a file, one names a model that cannot load
(failed), one hangs past its time limit (timed out: SIGINT, then the kill). Then the same
command again runs nothing, and `--shard 0/2` and `--shard 1/2` together run every task once."""

from __future__ import annotations

import itertools
import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from acp_server.batch.command import HERON
from tests.support.repositories import repository

SPEAKERS = {"system", "human", "gpt", "tool"}
SCRIPT = {
    "rules": [
        {"match": "^hang", "replies": [[{"sleep": 120}, {"text": "never"}]]},
        {
            "match": "^write",
            "replies": [
                [
                    {
                        "tool_call": {
                            "name": "write_file",
                            "arguments": {"path": "NOTES.md", "content": "# notes\nfirst\n"},
                        }
                    }
                ],
                [{"text": "Wrote NOTES.md."}],
            ],
        },
        {"match": "", "replies": [[{"echo": "You said: "}]]},
    ]
}


@pytest.fixture
def batch_env(agent_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    script = tmp_path / "batch-script.json"
    script.write_text(json.dumps(SCRIPT))
    return {**agent_env, "HERON_MODEL": f"scripted:{script}"}


@pytest.fixture
def tasks_file(tmp_path: Path, workspace: Path) -> Path:
    first, _ = repository(
        tmp_path / "repository", {"app.py": "print('v1')\n"}, {"app.py": "print('v2')\n"}
    )
    tasks = [
        {"id": "echo-1", "prompt": "hello one", "workspace": "workspace"},
        {"id": "write", "prompt": "write the notes", "repository": "repository", "commit": first},
        {"id": "broken", "prompt": "hello", "workspace": "workspace", "model": "scripted:nope"},
        {"id": "echo-2", "prompt": "hello two", "workspace": "workspace"},
        {"id": "hang", "prompt": "hang on", "workspace": "workspace", "timeout": 3},
        {"id": "echo-3", "prompt": "-hello three", "workspace": "workspace"},
    ]
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(json.dumps(task) + "\n" for task in tasks))
    return path


def batch(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*HERON, "batch", *args], env=env, capture_output=True, text=True, timeout=120
    )


def summary(out: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in (out / "summary.jsonl").read_text().splitlines()]
    return {row["id"]: row for row in rows}


def check_sharegpt(path: Path, prompt: str) -> list[dict[str, str]]:
    record = json.loads(path.read_text())
    turns: list[dict[str, str]] = record["conversations"]
    assert all(set(t) == {"from", "value"} and isinstance(t["value"], str) for t in turns)
    assert {t["from"] for t in turns} <= SPEAKERS
    assert turns[0]["from"] == "system" and "<tools>" in turns[0]["value"]
    assert turns[1] == {"from": "human", "value": prompt}
    assert all(a["from"] != b["from"] for a, b in itertools.pairwise(turns))
    return turns


def check_events(path: Path) -> list[dict[str, Any]]:
    events = [json.loads(line) for line in path.read_text().splitlines()]
    assert events[0]["type"] == "start" and events[-1]["type"] == "result"
    assert all("sessionUpdate" in e for e in events[1:-1])
    return events


def test_a_batch_records_each_task_resumes_and_shards(
    batch_env: dict[str, str], tasks_file: Path, tmp_path: Path, workspace: Path
) -> None:
    out = tmp_path / "runs"
    ran = batch(batch_env, str(tasks_file), "--out", str(out), "--workers", "3")
    assert ran.returncode == 1, ran.stderr  # a task failed
    rows = summary(out)
    assert list(rows) == ["echo-1", "write", "broken", "echo-2", "hang", "echo-3"]
    statuses = {task: row["status"] for task, row in rows.items()}
    assert statuses == {
        "echo-1": "done",
        "write": "done",
        "broken": "failed",
        "echo-2": "done",
        "hang": "timed_out",
        "echo-3": "done",
    }
    assert "4 done, 1 failed, 1 timed out" in ran.stderr
    table = ran.stdout.splitlines()
    assert table[0].split()[:2] == ["id", "status"] and len(table) >= 7

    for task, prompt in (("echo-1", "hello one"), ("echo-3", "-hello three")):
        assert rows[task]["exit_code"] == 0 and rows[task]["stop_reason"] == "end_turn"
        turns = check_sharegpt(out / task / "trajectory.json", prompt)
        assert turns[-1]["from"] == "gpt" and f"You said: {prompt}" in turns[-1]["value"]
        check_events(out / task / "events.jsonl")
        assert (out / task / "diff.patch").read_bytes() == b""

    wrote = check_sharegpt(out / "write" / "trajectory.json", "write the notes")
    assert [t["from"] for t in wrote] == ["system", "human", "gpt", "tool", "gpt"]
    assert "<tool_call>" in wrote[2]["value"] and "write_file" in wrote[2]["value"]
    assert "<tool_response>" in wrote[3]["value"]
    assert rows["write"]["tool_calls"] == 1 and rows["write"]["requests"] == 2
    patch = (out / "write" / "diff.patch").read_text()
    assert "+++ b/NOTES.md" in patch and "+first" in patch and "app.py" not in patch

    assert rows["hang"]["exit_code"] == 130 and rows["hang"]["stop_reason"] == "cancelled"
    check_sharegpt(out / "hang" / "trajectory.json", "hang on")
    assert rows["broken"]["exit_code"] not in (0, 130) and rows["broken"]["error"]
    assert sorted(p.name for p in workspace.iterdir()) == ["README.md"]  # copies only

    results = {task: (out / task / "result.json").read_bytes() for task in rows}
    again = batch(batch_env, str(tasks_file), "--out", str(out), "--workers", "3")
    assert again.returncode == 1
    assert "0 to run" in again.stderr
    assert {task: (out / task / "result.json").read_bytes() for task in rows} == results

    shards = tmp_path / "shards"
    for shard in ("0/2", "1/2"):
        batch(batch_env, str(tasks_file), "--out", str(shards), "--workers", "3", "--shard", shard)
    ran_ids = [row["id"] for row in summary(shards).values()]
    assert sorted(ran_ids) == sorted(rows)
    assert {task: row["status"] for task, row in summary(shards).items()} == statuses


def test_bad_lines_stop_the_batch_before_anything_runs(
    batch_env: dict[str, str], tmp_path: Path
) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text(
        '{"id": "a", "prompt": "p", "workspace": "missing"}\n'
        '{"id": "b", "prompt": "p"}\n'
        '{"id": "c", "prompt": "p", "workspace": "."}\n'
    )
    out = tmp_path / "runs"
    ran = batch(batch_env, str(path), "--out", str(out))
    assert ran.returncode == 2
    assert f"{path} line 2: give either workspace" in ran.stderr
    assert not out.exists()
    path.write_text('{"id": "a", "prompt": "p", "workspace": "missing"}\n')
    ran = batch(batch_env, str(path), "--out", str(out))
    assert ran.returncode == 2
    assert f"{path} line 1: workspace {tmp_path / 'missing'} is not a folder" in ran.stderr


def test_a_batch_stopped_with_ctrl_c_stops_its_runs_and_leaves_them_to_the_next(
    batch_env: dict[str, str], tmp_path: Path, workspace: Path
) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps({"id": "hang", "prompt": "hang on", "workspace": "workspace"}))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    out = tmp_path / "runs"
    env = {**batch_env, "TMPDIR": str(scratch)}  # where the copies go
    batch_run = subprocess.Popen(
        [*HERON, "batch", str(path), "--out", str(out)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    events = out / "hang" / "events.jsonl"
    deadline = time.monotonic() + 60
    while not (events.is_file() and events.read_text().startswith('{"type":')):
        assert time.monotonic() < deadline and batch_run.poll() is None
        time.sleep(0.1)
    batch_run.send_signal(signal.SIGINT)
    _, said = batch_run.communicate(timeout=60)
    assert batch_run.returncode == 130, said
    assert "interrupted" in said
    assert not (out / "hang" / "result.json").exists()
    assert not (out / "summary.jsonl").exists()  # nothing was recorded
    assert list(scratch.iterdir()) == []  # the copy is gone
    assert not running_in(scratch)  # and its run with it


def running_in(folder: Path) -> list[str]:
    """The command lines of the processes that name ``folder``."""
    found: list[str] = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            line = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # gone meanwhile
        if str(folder) in line:
            found.append(line)
    return found
