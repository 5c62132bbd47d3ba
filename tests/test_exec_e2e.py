"""`heron exec` end to end: the real command, a real `heron acp` child, the scripted model (and
the fake model server for usage and cost), real files and the real sandbox.

Each mode with nobody to ask: an edit applied in full-access and accept-edits, refused in plan
and ask (exit 3, the model told why); a dangerous command refused in every mode unless
--allow-dangerous, which runs it only where the mode would; a clarify question left unanswered
at once. The --json stream read line by line against the contract `heron batch` relies on.
SIGINT to the process group mid-turn: the turn is cancelled, exit 130, and the stored session
goes on with --session. `heron ask` is the same command."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_llm import MODELS, FakeLLM, Reply, Text, ToolCall

HERON = [sys.executable, "-c", "from acp_server.cli import main; raise SystemExit(main())"]
RESULT_KEYS = {
    "type",
    "sessionId",
    "stopReason",
    "exitCode",
    "error",
    "usage",
    "cost",
    "requests",
    "toolCalls",
    "durationMs",
    "answer",
}


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_call": {"name": name, "arguments": arguments}}


SCRIPT = {
    "rules": [
        {
            "match": "^write",
            "replies": [
                [{"text": "Let me write it."}, call("write_file", path="NOTES.md", content="hi\n")],
                [{"text": "Wrote NOTES.md."}],
            ],
        },
        {
            "match": "^touch",
            "replies": [[call("terminal", command="touch made.txt")], [{"text": "Touched."}]],
        },
        {
            "match": "^clean",
            "replies": [[call("terminal", command="rm -rf build")], [{"text": "Cleaned."}]],
        },
        {
            "match": "^choose",
            "replies": [
                [call("clarify", question="Which one?", choices=["red", "blue"])],
                [{"text": "I went with red."}],
            ],
        },
        {
            "match": "^plan",
            "replies": [[call("switch_mode", plan="Write NOTES.md.")], [{"text": "Planned."}]],
        },
        {"match": "^hang", "replies": [[{"thinking": "Waiting."}, {"sleep": 60}]]},
        {"match": "", "replies": [[{"echo": "You said: "}]]},
    ]
}


@pytest.fixture
def exec_env(agent_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    script = tmp_path / "exec-script.json"
    script.write_text(json.dumps(SCRIPT))
    return {**agent_env, "HERON_MODEL": f"scripted:{script}"}


def heron(
    args: list[str], env: dict[str, str], cwd: Path, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*HERON, *args],
        env=env,
        cwd=cwd,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def stream(stdout: str) -> list[dict[str, Any]]:
    """The --json stream, every line parsed on its own; nothing else on stdout."""
    lines = stdout.splitlines()
    assert lines, "no output"
    return [json.loads(line) for line in lines]


def checked(
    items: list[dict[str, Any]],
) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """The start, the updates and the result, each shaped as the contract says."""
    start, *updates, result = items
    assert set(start) == {"type", "sessionId", "cwd", "model", "mode"}
    assert start["type"] == "start"
    assert all("sessionUpdate" in u and "type" not in u for u in updates)
    assert set(result) == RESULT_KEYS and result["type"] == "result"
    assert result["sessionId"] == start["sessionId"]
    assert isinstance(result["durationMs"], int) and isinstance(result["requests"], int)
    return start, updates, result


def test_full_access_applies_the_edit_and_streams_json_lines(
    exec_env: dict[str, str], workspace: Path
) -> None:
    done = heron(
        ["exec", "--json", "--mode", "full-access", "write the notes"], exec_env, workspace
    )
    assert done.returncode == 0, done.stderr
    start, updates, result = checked(stream(done.stdout))
    assert start["cwd"] == str(workspace) and start["mode"] == "full-access"
    assert start["model"].startswith("scripted:")
    assert (workspace / "NOTES.md").read_text() == "hi\n"
    kinds = [u["sessionUpdate"] for u in updates]
    assert "tool_call" in kinds and "tool_call_update" in kinds and "usage_update" in kinds
    assert result["stopReason"] == "end_turn" and result["exitCode"] == 0
    assert result["error"] is None
    assert result["answer"] == "Wrote NOTES.md."  # the last message, not "Let me write it."
    assert result["toolCalls"] == 1 and result["requests"] == 2
    assert result["usage"]["totalTokens"] > 0 and result["cost"] is None  # no price known


@pytest.mark.parametrize("mode", ["plan", "ask"])
def test_plan_and_ask_refuse_the_edit_with_exit_3(
    exec_env: dict[str, str], workspace: Path, mode: str
) -> None:
    done = heron(["exec", "--json", "--mode", mode, "write the notes"], exec_env, workspace)
    assert done.returncode == 3, done.stderr
    assert not (workspace / "NOTES.md").exists()
    _, updates, result = checked(stream(done.stdout))
    assert result["exitCode"] == 3 and result["stopReason"] == "end_turn"
    assert "refused for lack of approval" in result["error"]
    refused = [u for u in updates if u.get("_meta", {}).get("heron", {}).get("refused")]
    assert len(refused) == 1
    told = json.dumps([u.get("rawOutput") for u in updates])  # what the model read
    expected = "plan mode is read-only" if mode == "plan" else "no one is here to approve it"
    assert expected in told


def test_leaving_plan_mode_is_not_approved_and_the_model_is_told_why(
    exec_env: dict[str, str], workspace: Path
) -> None:
    done = heron(["exec", "--json", "--mode", "plan", "plan the notes"], exec_env, workspace)
    assert done.returncode == 3, done.stderr
    _, updates, result = checked(stream(done.stdout))
    assert result["answer"] == "Planned."
    told = json.dumps([u.get("rawOutput") for u in updates])
    assert "Not approved: no one is here to approve it" in told  # not "ask again"


def test_accept_edits_applies_edits_and_refuses_commands(
    exec_env: dict[str, str], workspace: Path, bubblewrap: None
) -> None:
    done = heron(["exec", "--mode", "accept-edits", "write the notes"], exec_env, workspace)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Wrote NOTES.md.\n"  # the answer alone on stdout
    assert (workspace / "NOTES.md").exists()
    done = heron(["exec", "--mode", "accept-edits", "touch a file"], exec_env, workspace)
    assert done.returncode == 3, done.stderr
    assert not (workspace / "made.txt").exists()
    assert "refused" in done.stderr and "(exit 3)" in done.stderr


@pytest.mark.parametrize(
    ("mode", "flag", "runs"),
    [
        ("full-access", False, False),
        ("full-access", True, True),
        ("accept-edits", True, False),  # the mode would ask about it anyway
        ("ask", True, False),
    ],
)
def test_a_dangerous_command_runs_only_with_allow_dangerous_where_the_mode_runs_it(
    exec_env: dict[str, str], workspace: Path, bubblewrap: None, mode: str, flag: bool, runs: bool
) -> None:
    (workspace / "build").mkdir()
    (workspace / "build" / "out.o").write_text("x")
    args = ["exec", "--mode", mode, *(["--allow-dangerous"] if flag else []), "clean up"]
    done = heron(args, exec_env, workspace)
    assert done.returncode == (0 if runs else 3), done.stderr
    assert (workspace / "build").exists() != runs


def test_a_question_gets_no_answer_at_once(exec_env: dict[str, str], workspace: Path) -> None:
    began = time.monotonic()
    done = heron(["exec", "--mode", "ask", "choose a colour"], exec_env, workspace)
    assert done.returncode == 0, done.stderr  # no answer is not a refusal
    assert done.stdout == "I went with red.\n"
    assert "left unanswered: Which one?" in done.stderr
    assert time.monotonic() - began < 30


def hanging(
    env: dict[str, str], workspace: Path, until: str
) -> tuple[subprocess.Popen[str], list[dict[str, Any]]]:
    """`heron exec --json "hang on"` running, and its stream up to the first line of type or
    kind ``until``."""
    run = subprocess.Popen(
        [*HERON, "exec", "--json", "hang on"],
        env=env,
        cwd=workspace,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert run.stdout is not None
    lines: list[dict[str, Any]] = []
    for line in run.stdout:
        lines.append(json.loads(line))
        if until in (lines[-1].get("type"), lines[-1].get("sessionUpdate")):
            break
    return run, lines


def interrupted(env: dict[str, str], workspace: Path, until: str) -> list[dict[str, Any]]:
    """The whole stream of a run sent SIGINT to its process group (as `heron batch` stops a
    run) once ``until`` came; it must exit 130."""
    run, lines = hanging(env, workspace, until)
    os.killpg(run.pid, signal.SIGINT)
    rest, errors = run.communicate(timeout=30)
    assert run.returncode == 130, errors
    return [*lines, *stream(rest)]


def test_an_agent_that_dies_mid_turn_fails_the_run_at_once(
    exec_env: dict[str, str], workspace: Path
) -> None:
    run, lines = hanging(exec_env, workspace, until="agent_thought_chunk")
    children = Path(f"/proc/{run.pid}/task/{run.pid}/children").read_text().split()
    assert len(children) == 1  # heron acp, in a session of its own
    os.kill(int(children[0]), signal.SIGKILL)
    rest, errors = run.communicate(timeout=30)
    assert run.returncode == 1, errors
    _, _, result = checked([*lines, *stream(rest)])
    assert result["error"].startswith("heron acp ended before it answered")


def test_sigint_mid_turn_cancels_exits_130_and_the_session_goes_on(
    exec_env: dict[str, str], workspace: Path
) -> None:
    lines = interrupted(exec_env, workspace, until="agent_thought_chunk")
    _, _, result = checked(lines)
    assert result["stopReason"] == "cancelled" and result["exitCode"] == 130
    session = result["sessionId"]
    again = heron(["exec", "--json", "--session", session, "hello again"], exec_env, workspace)
    assert again.returncode == 0, again.stderr
    start, _, result = checked(stream(again.stdout))
    assert start["sessionId"] == session and result["answer"] == "You said: hello again"


def test_sigint_as_the_session_opens_still_ends_with_a_result_and_130(
    exec_env: dict[str, str], workspace: Path
) -> None:
    lines = interrupted(exec_env, workspace, until="start")  # the turn just begun, or about to
    _, _, result = checked(lines)
    assert result["exitCode"] == 130 and result["error"] == "interrupted"


def test_usage_requests_and_cost_come_from_the_model_server(
    env: dict[str, str], heron_home: Path, workspace: Path, fake: FakeLLM
) -> None:
    model = MODELS["anthropic"]
    (heron_home / "config.toml").write_text(
        f'[models."{model}"]\ninput_price = 3.0\noutput_price = 15.0\n'
    )
    fake.enqueue(
        Reply((ToolCall("read_file", {"path": "README.md"}),), usage=(100, 20)),
        Reply((Text("It is a sample."),), usage=(200, 30)),
    )
    done = heron(["exec", "--json", "what is this?"], env, workspace)
    assert done.returncode == 0, done.stderr
    _, _, result = checked(stream(done.stdout))
    assert result["answer"] == "It is a sample."
    assert result["requests"] == 2 and result["toolCalls"] == 1
    assert result["usage"]["inputTokens"] == 300 and result["usage"]["outputTokens"] == 50
    spent = (300 * 3.0 + 50 * 15.0) / 1_000_000
    assert result["cost"] == {"amount": pytest.approx(spent), "currency": "USD"}
    fake.enqueue(Reply((Text("Still a sample."),), usage=(400, 10)))
    again = ["exec", "--json", "--session", result["sessionId"], "and now?"]
    done = heron(again, env, workspace)
    _, _, result = checked(stream(done.stdout))
    assert result["requests"] == 1  # this run's, not the session's
    assert result["cost"]["amount"] == pytest.approx((400 * 3.0 + 10 * 15.0) / 1_000_000)


def test_the_prompt_comes_from_stdin_and_usage_errors_exit_2(
    exec_env: dict[str, str], workspace: Path
) -> None:
    done = heron(["exec", "-"], exec_env, workspace, stdin="from a pipe\n")
    assert done.returncode == 0 and done.stdout == "You said: from a pipe\n", done.stderr
    assert (
        heron(["exec", "--cwd", str(workspace / "nope"), "hi"], exec_env, workspace).returncode == 2
    )
    assert heron(["exec", "--mode", "yolo", "hi"], exec_env, workspace).returncode == 2
    unknown = heron(["exec", "--json", "--session", "no-such-session", "hi"], exec_env, workspace)
    assert unknown.returncode == 2
    assert json.loads(unknown.stdout.splitlines()[-1])["exitCode"] == 2


def test_ask_is_exec_under_its_old_name(exec_env: dict[str, str], workspace: Path) -> None:
    done = heron(["ask", "what is here?"], exec_env, workspace)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "You said: what is here?\n"
    assert f"in {workspace}" in done.stderr
    assert "exec (ask)" in heron(["--help"], exec_env, workspace).stdout
    helped = heron(["ask", "--help"], exec_env, workspace).stdout
    assert "`heron ask` is an alias of `heron exec`, kept for compatibility" in helped
    missing_key = heron(["ask", "hi", "--model", "anthropic:claude-x"], exec_env, workspace)
    assert missing_key.returncode == 1
    assert "ANTHROPIC_API_KEY" in missing_key.stderr
