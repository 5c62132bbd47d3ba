"""Getting Heron into editors: `heron setup`, `heron doctor`, `heron login`, terminal auth, and
the ACP Registry entry, each run as a user would (real subprocesses, real files)."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from acp_server import __version__
from acp_server.install import jsonc
from tests.support.fake_llm import FakeLLM
from tests.support.raw import RawAgent

ROOT = Path(__file__).resolve().parent.parent
VENDOR = ROOT / "vendor"
HERON = str(Path(sys.executable).parent / "heron")

ZED_SETTINGS = """// Zed settings
//
// For information on how to configure Zed, see the Zed documentation.
{
  "theme": "One Dark", // the dark one
  /* agents I use */
  "agent_servers": {
    "Claude Code": {
      "type": "custom",
      "command": "/usr/local/bin/claude-code-acp",
      "args": [],
    },
  },
  "vim_mode": true,
}
"""


@pytest.fixture
def user(tmp_path: Path, agent_env: dict[str, str]) -> dict[str, str]:
    """A user's environment: their own home, config dir and Heron home, no key yet."""
    home = tmp_path / "user"
    (home / ".config").mkdir(parents=True)
    env = {**agent_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    env.pop("HERON_MODEL")
    return env


def heron(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [HERON, *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_jsonc_edits_keep_comments_order_and_trailing_commas() -> None:
    entry = {"type": "custom", "command": "/bin/heron", "args": ["acp"]}
    updated = jsonc.set_member(ZED_SETTINGS, ("agent_servers", "Heron"), entry)
    assert (
        updated.replace(
            '    "Heron": {\n      "type": "custom",\n      "command": "/bin/heron",\n      "args": [\n        "acp"\n      ]\n    },\n',
            "",
        )
        == ZED_SETTINGS
    )
    again = jsonc.set_member(
        updated, ("agent_servers", "Heron"), {**entry, "command": "/new/heron"}
    )
    assert jsonc.loads(again)["agent_servers"]["Heron"]["command"] == "/new/heron"
    assert list(jsonc.loads(again)["agent_servers"]) == ["Heron", "Claude Code"]
    fresh = jsonc.set_member('{\n    "a": [1, 2], // note\n}', ("heron.path",), "/bin/heron")
    assert fresh == '{\n    "heron.path": "/bin/heron",\n    "a": [1, 2], // note\n}'
    for broken in ('{"a": 1 "b": 2}', '{"a": }', "[1, 2]", '{"a": "unterminated}'):
        with pytest.raises(jsonc.JsoncError):
            jsonc.set_member(broken, ("agent_servers", "Heron"), entry)


def test_setup_zed_merges_into_settings_with_comments_and_backs_them_up(
    user: dict[str, str],
) -> None:
    settings = Path(user["XDG_CONFIG_HOME"]) / "zed" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(ZED_SETTINGS)

    dry = heron(user, "setup", "zed", "--dry-run")
    assert dry.returncode == 0 and "nothing written" in dry.stdout and HERON in dry.stdout
    assert settings.read_text() == ZED_SETTINGS and len(list(settings.parent.iterdir())) == 1

    done = heron(user, "setup", "zed")
    assert done.returncode == 0, done.stderr
    text = settings.read_text()
    assert "// the dark one" in text and "/* agents I use */" in text
    servers = jsonc.loads(text)["agent_servers"]
    assert servers["Heron"] == {
        "type": "custom",
        "command": HERON,
        "args": ["acp"],
        "env": {},
        "default_mode": "ask",
    }
    assert servers["Claude Code"]["command"] == "/usr/local/bin/claude-code-acp"
    [backup] = [p for p in settings.parent.iterdir() if p.name.endswith(".bak")]
    assert backup.read_text() == ZED_SETTINGS
    assert "already set up" in heron(user, "setup", "zed").stdout


def test_setup_refuses_a_file_it_cannot_parse(user: dict[str, str]) -> None:
    settings = Path(user["XDG_CONFIG_HOME"]) / "zed" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{ "theme": "One Dark" "vim_mode": true }')
    done = heron(user, "setup", "zed")
    assert done.returncode == 1
    assert (
        "line 1, column 23" in done.stdout and '"agent_servers"' in done.stdout
    )  # where, and the snippet
    assert settings.read_text() == '{ "theme": "One Dark" "vim_mode": true }'
    assert [p.name for p in settings.parent.iterdir()] == ["settings.json"]


def test_setup_jetbrains_and_vscode_keep_what_is_there(user: dict[str, str]) -> None:
    acp = Path(user["HOME"]) / ".jetbrains" / "acp.json"
    acp.parent.mkdir()
    existing = {
        "default_mcp_settings": {"use_idea_mcp": True},
        "agent_servers": {"Other": {"command": "/bin/other"}},
    }
    acp.write_text(json.dumps(existing, indent=2))
    assert heron(user, "setup", "jetbrains").returncode == 0
    merged = json.loads(acp.read_text())
    assert merged["default_mcp_settings"] == {"use_idea_mcp": True}
    assert merged["agent_servers"] == {
        "Heron": {"command": HERON, "args": ["acp"], "env": {}},
        "Other": {"command": "/bin/other"},
    }

    assert heron(user, "setup", "vscode").returncode == 0
    vscode = Path(user["XDG_CONFIG_HOME"]) / "Code" / "User" / "settings.json"
    assert json.loads(vscode.read_text()) == {"heron.path": HERON}


def test_doctor_reports_the_model_the_key_and_each_editor(
    user: dict[str, str], tmp_path: Path, fake: FakeLLM
) -> None:
    fake.accepted_keys = {"sk-ant-secret-value"}  # doctor asks the provider: this fake one
    user = {**user, "ANTHROPIC_BASE_URL": fake.url}
    before = heron(user, "doctor")
    assert before.returncode == 1 and "run `heron login`" in before.stdout
    assert "Zed: not set up" in before.stdout

    logged_in = heron(user, "login", "--provider", "anthropic", stdin="sk-ant-secret-value\n")
    assert logged_in.returncode == 0, logged_in.stdout + logged_in.stderr
    assert heron(user, "setup", "zed").returncode == 0
    after = heron(user, "doctor")
    assert after.returncode == 0, after.stdout
    assert "model: anthropic:claude-sonnet-4-5 (key set)" in after.stdout
    assert "[ok] anthropic:claude-sonnet-4-5: reachable, key accepted" in after.stdout
    assert re.search(r"\[ok\] Zed: .* starts " + re.escape(HERON), after.stdout)
    assert "secret" not in after.stdout

    acp = Path(user["HOME"]) / ".jetbrains" / "acp.json"
    acp.parent.mkdir()
    acp.write_text(
        json.dumps({"agent_servers": {"Heron": {"command": str(tmp_path / "gone" / "heron")}}})
    )
    broken = heron(user, "doctor")
    assert (
        broken.returncode == 1
        and "JetBrains IDEs" in broken.stdout
        and "cannot run" in broken.stdout
    )


def test_login_stores_the_key_privately_and_never_shows_it(user: dict[str, str]) -> None:
    home = Path(user["HERON_HOME"])
    (home / "config.toml").write_text(
        '# my settings\ndefault_mode = "accept-edits"\n\n[providers.openai]\nbase_url = "https://proxy"\n'
    )
    done = heron(user, "login", stdin="2\nsk-openai-secret\n")
    assert done.returncode == 0, done.stdout + done.stderr
    config = home / "config.toml"
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    text = config.read_text()
    assert "# my settings\n" in text and 'base_url = "https://proxy"' in text
    assert 'api_key = "sk-openai-secret"' in text and text.startswith('model = "openai:gpt-5"')
    assert "sk-openai-secret" not in done.stdout + done.stderr
    assert "sk-openai-secret" not in "".join(p.read_text() for p in home.rglob("*.log"))
    assert (
        heron(user, "login", "--provider", "openai", stdin="\n").returncode == 1
    )  # no key: no change
    assert 'api_key = "sk-openai-secret"' in config.read_text()


def test_until_a_key_exists_sessions_say_how_to_log_in(
    user: dict[str, str], workspace: Path
) -> None:
    with RawAgent(user) as agent:
        result = agent.initialize({"auth": {"terminal": True}})
        login = [m for m in result["authMethods"] if m.get("type") == "terminal"]
        assert login == [
            {
                "id": "heron-login",
                "name": "Log in with an API key",
                "description": login[0]["description"],
                "type": "terminal",
                "args": ["login"],
            }
        ]
        refused = agent.request("session/new", {"cwd": str(workspace), "mcpServers": []})
        assert refused["error"]["code"] == -32000 and "heron login" in refused["error"]["message"]
        config = f"{user['HERON_HOME']}/config.toml"  # the file this agent reads, not ~/.heron's
        assert config in refused["error"]["message"] and config in login[0]["description"]
    with RawAgent(user) as agent:
        result = agent.initialize({})
        assert [m["id"] for m in result["authMethods"]] == ["api-key"]  # no terminal auth offered
    assert heron(user, "login", "--provider", "anthropic", stdin="sk-ant-x\n").returncode == 0
    with RawAgent(user) as agent:  # the editor restarts the agent after the login exits 0
        agent.initialize({"auth": {"terminal": True}})
        assert "result" in agent.request("session/new", {"cwd": str(workspace), "mcpServers": []})


def test_the_registry_entry_is_valid_and_pinned_to_this_version() -> None:
    folder = ROOT / "editor-extensions" / "zed" / "heron"
    entry: dict[str, Any] = json.loads((folder / "agent.json").read_text())
    schema = json.loads((VENDOR / "acp-registry" / "agent.schema.json").read_text())
    jsonschema.validate(entry, schema)
    assert entry["id"] == folder.name and entry["version"] == __version__
    assert entry["distribution"] == {
        "uvx": {"package": f"heron-agent=={__version__}", "args": ["acp"]}
    }
    icon = (folder / "icon.svg").read_text()
    assert 'width="16"' in icon and 'height="16"' in icon and 'viewBox="0 0 16 16"' in icon
    colours = set(re.findall(r'(?:fill|stroke)="([^"]*)"', icon))
    assert "currentColor" in colours and colours <= {"currentColor", "none", "inherit"}
    assert "#" not in icon and "rgb" not in icon
    snippet = jsonc.loads((ROOT / "editor-extensions" / "zed" / "custom-agent.jsonc").read_text())
    assert snippet["agent_servers"]["Heron"]["type"] == "custom"
    assert snippet["agent_servers"]["Heron"]["args"] == ["acp"]
    assert os.path.basename(HERON) == "heron"


def test_nothing_reaches_the_editor_before_a_sessions_response(
    agent_env: dict[str, str], workspace: Path
) -> None:
    """JetBrains hangs on an update that arrives before the session it belongs to: the slash
    commands and MCP notices (here a server that dies at once) come after each response."""
    dying = {
        "name": "dying",
        "command": sys.executable,
        "args": ["-c", "raise SystemExit(1)"],
        "env": [],
    }
    with RawAgent(agent_env) as agent:
        agent.initialize({"session": {"notices": {}}})
        new = agent.request("session/new", {"cwd": str(workspace), "mcpServers": [dying]})
        session_id = new["result"]["sessionId"]
        resumed = agent.request(
            "session/resume",
            {"sessionId": session_id, "cwd": str(workspace), "mcpServers": [dying]},
        )
        forked = agent.request(
            "session/fork", {"sessionId": session_id, "cwd": str(workspace), "mcpServers": [dying]}
        )
        agent.wait_for(
            lambda m: m.get("params", {}).get("update", {}).get("sessionUpdate") == "notice"
        )
        agent.drain()
        order = [m for _, m in agent.arrivals]
        for response, opened in ((new, session_id), (forked, forked["result"]["sessionId"])):
            updates = [
                i for i, m in enumerate(order) if m.get("params", {}).get("sessionId") == opened
            ]
            assert updates and min(updates) > order.index(response)
        assert "result" in resumed


def test_login_edits_only_config_files_it_can_edit_safely(user: dict[str, str]) -> None:
    config = Path(user["HERON_HOME"]) / "config.toml"
    config.write_text(
        'model = "anthropic:x"\n[providers.anthropic] # work account\napi_key = "old"\nbase_url = "https://b"\n'
    )
    config.chmod(0o644)
    assert heron(user, "login", "--provider", "anthropic", stdin="new-key\n").returncode == 0
    assert (
        config.read_text()
        == 'model = "anthropic:x"\n[providers.anthropic] # work account\napi_key = "new-key"\nbase_url = "https://b"\n'
    )
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    inline = '[providers]\nanthropic = { api_key = "old" }\n'
    config.write_text(inline)
    refused = heron(user, "login", "--provider", "anthropic", stdin="new-key\n")
    assert refused.returncode == 1 and "add it by hand" in refused.stdout
    assert config.read_text() == inline


def test_setup_again_updates_the_command_and_keeps_the_users_settings(
    user: dict[str, str], tmp_path: Path
) -> None:
    real = tmp_path / "dotfiles" / "zed-settings.json"
    real.parent.mkdir()
    real.write_text(
        '{\n  "agent_servers": {\n    "Heron": {\n      "command": "/old/heron", // before a reinstall\n      "args": ["acp"],\n      "env": {"HERON_MODEL": "openai:gpt-5"},\n      "default_mode": "plan"\n    }\n  }\n}\n'
    )
    settings = Path(user["XDG_CONFIG_HOME"]) / "zed" / "settings.json"
    settings.parent.mkdir()
    settings.symlink_to(real)  # a dotfiles setup
    assert heron(user, "setup", "zed").returncode == 0
    assert settings.is_symlink()
    entry = jsonc.loads(real.read_text())["agent_servers"]["Heron"]
    assert entry == {
        "type": "custom",
        "command": HERON,
        "args": ["acp"],
        "env": {"HERON_MODEL": "openai:gpt-5"},
        "default_mode": "plan",
    }


def test_doctor_says_whether_commands_run_in_a_sandbox(user: dict[str, str]) -> None:
    home = Path(user["HERON_HOME"])
    (home / "config.toml").write_text('model = "scripted:echo"\n')
    assert "[ok] sandbox: bubblewrap" in heron(user, "doctor").stdout
    without = {**user, "PATH": "/nonexistent"}  # no bwrap to be found
    missing = heron(without, "doctor")
    assert "[!!] sandbox: none (bubblewrap (bwrap) is not installed)" in missing.stdout
    assert "sudo apt install bubblewrap" in missing.stdout
    (home / "config.toml").write_text(
        'model = "scripted:echo"\n[sandbox]\nenabled = false\nrequired = false\n'
    )
    assert "[--] sandbox: turned off" in heron(user, "doctor").stdout


def test_help_names_the_config_file_heron_really_reads(user: dict[str, str]) -> None:
    shown = heron(user, "--help").stdout
    assert f"{user['HERON_HOME']}/config.toml" in shown
    assert "~/.heron" not in shown
