"""Secrets stay out of children's environments (by name and by value) and out of what Heron
writes down (the Redactor)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_core.safety.secrets import Redactor, scrub, secret_name, secret_value

ROOT = Path(__file__).resolve().parent.parent
ENVIRONMENT = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/home/u",
    "PWD": "/w",
    "OLDPWD": "/",
    "LANG": "C.UTF-8",
    "GIT_AUTHOR_NAME": "Ada",
    "KEYBOARD_LAYOUT": "us",
    "DATABASE_URL": "postgres://app:hunter2hunter2@db:5432/app",
    "MYSQL_PWD": "s3cretpw",
    "GH_PAT": "github_pat_11AAAAAAA0abcdefghijklmnopqrstuv",
    "SENTRY_DSN": "https://abc123@o1.ingest.sentry.io/1",
    "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T0/B0/XXXX",
    "DOCKER_PASS": "dockerpass1",
    "ANTHROPIC_API_KEY": "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
    "SSH_AUTH_SOCK": "/tmp/ssh-agent.sock",
    "NPM_AUTHTOKEN": "npmtoken123",
    "INNOCENT_LOOKING": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "AWS_ID": "AKIAABCDEFGHIJKLMNOP",
    "JWT_HERE": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop",
}


def test_scrubbing_by_name_and_by_value() -> None:
    result = scrub(ENVIRONMENT)
    assert set(result.kept) == {
        "PATH",
        "HOME",
        "PWD",
        "OLDPWD",
        "LANG",
        "GIT_AUTHOR_NAME",
        "KEYBOARD_LAYOUT",
    }
    assert set(result.removed) == set(ENVIRONMENT) - set(result.kept)


def test_keep_environment_is_the_way_back() -> None:
    result = scrub(ENVIRONMENT, frozenset({"DATABASE_URL"}))
    assert result.kept["DATABASE_URL"] == ENVIRONMENT["DATABASE_URL"]


@pytest.mark.parametrize(
    "value",
    ["https://user:pw@host/x", "sk-proj-abcdefghijklmnopqrst", "glpat-abcdefghijklmnopqrst"],
)
def test_secret_values(value: str) -> None:
    assert secret_value(value)


@pytest.mark.parametrize("value", ["https://example.com/x", "ssh://git@github.com/a/b", "en_US"])
def test_ordinary_values(value: str) -> None:
    assert secret_value(value) is None


def test_names() -> None:
    assert secret_name("api_key") and secret_name("X_SECRET_FILE") and secret_name("DB_PASSWD")
    assert not secret_name("PWD") and not secret_name("PATH") and not secret_name("AUTHOR")


def test_the_redactor_replaces_every_form_a_secret_takes() -> None:
    key = 'sk-ant-api03-abc"def\\ghi'
    redact = Redactor({"ANTHROPIC_API_KEY": key, "SHORT": "abc"})
    assert redact(f"key={key}!") == "key=[REDACTED:ANTHROPIC_API_KEY]!"
    stored = json.dumps({"output": f"it is {key}"})
    assert key not in json.loads(redact(stored))["output"]
    assert "[REDACTED:ANTHROPIC_API_KEY]" in json.loads(redact(stored))["output"]
    assert redact("abc stays: too short to be told from chance") == (
        "abc stays: too short to be told from chance"
    )
    assert not Redactor({})


@pytest.mark.skipif(sys.platform != "linux", reason="prctl is Linux's")
@pytest.mark.parametrize("protected", [False, True])
def test_a_protected_process_keeps_its_environment_from_its_own_user(protected: bool) -> None:
    """Two processes of one unprivileged user: Heron (protected) and a command it started
    outside any sandbox, reading Heron's /proc/<pid>/environ."""
    as_user = _unprivileged()
    code = (
        "import sys, time\n"
        "from agent_core.safety.process import protect_own_memory\n"
        f"assert protect_own_memory() if {protected} else True\n"
        "print('ready', flush=True)\n"
        "time.sleep(30)\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "PROVIDER_KEY": "sk-live-secret"}
    heron = subprocess.Popen(
        [sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, preexec_fn=as_user
    )
    try:
        assert heron.stdout is not None and heron.stdout.readline() == b"ready\n"
        read = f"print(open('/proc/{heron.pid}/environ', 'rb').read())"
        command = subprocess.run(
            [sys.executable, "-c", read], capture_output=True, text=True, preexec_fn=as_user
        )
    finally:
        heron.kill()
        heron.wait()
        assert heron.stdout is not None
        heron.stdout.close()
    if protected:
        assert command.returncode != 0 and "PermissionError" in command.stderr
    else:
        assert "sk-live-secret" in command.stdout


def _unprivileged() -> Callable[[], None] | None:
    """When the tests run as root: a root without capabilities, which may no more read a
    protected process than any user may (root reads everything only through CAP_SYS_PTRACE)."""
    if os.getuid() != 0:
        return None

    def drop() -> None:
        import ctypes

        libc = ctypes.CDLL(None)
        for capability in range(64):
            libc.prctl(24, capability, 0, 0, 0)  # PR_CAPBSET_DROP: gone from the next exec

    return drop
