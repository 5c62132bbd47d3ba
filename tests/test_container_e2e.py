"""The container backend end to end: `heron acp` over stdio, the scripted model calling the
terminal and execute_code, config.toml choosing the container for the workspace (an image
imported here, no registry), against real Podman."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_core.execution.container import ContainerSpec
from tests.support import containers
from tests.support.processes import sleep_marker, sleepers
from tests.support.raw import RawAgent
from tests.support.scripted_model import call

CLI_FOLDER = Path(__file__).parent / "node" / "node_modules" / ".bin"


@pytest.fixture(scope="module")
def image() -> Iterator[tuple[str, str]]:
    containers.require_podman()
    os_id = containers.unique_id()
    name = containers.import_image(os_id)
    yield name, os_id
    containers.remove_image(name)


def configure(heron_home: Path, workspace: Path, image: str | None) -> None:
    options = json.dumps(list(containers.RUN_OPTIONS))
    chosen = f'image = "{image}"\n' if image else ""
    (heron_home / "config.toml").write_text(
        '[execution]\nbackend = "local"\n'
        f'[execution.workspaces."{workspace}"]\nbackend = "container"\n{chosen}'
        f'network = "none"\nrun_options = {options}\n'
    )


def container_name(workspace: Path, heron_home: Path) -> str:
    return ContainerSpec((workspace,), Path.home(), heron_home).name


def exists(name: str) -> bool:
    return subprocess.run(["podman", "container", "exists", name], check=False).returncode == 0


def scripted(env: dict[str, str], tmp_path: Path, **turns: list[dict[str, Any]]) -> dict[str, str]:
    """``env`` with a model that, to the prompt ``name``, calls what ``turns[name]`` says."""
    rules = [
        {"match": f"^{prompt}$", "replies": [reply, [{"text": "done"}]]}
        for prompt, reply in turns.items()
    ]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"rules": rules}))
    return {**env, "HERON_MODEL": f"scripted:{script}"}


class Agent(RawAgent):
    """Allows what it is asked (commands outside the workspace's paths ask even in full-access)."""

    def answer(self, message: dict[str, Any]) -> None:
        if message["method"] != "session/request_permission":
            return super().answer(message)
        options = message["params"]["options"]
        allow = next(o for o in options if o["kind"].startswith("allow"))
        outcome = {"outcome": "selected", "optionId": allow["optionId"]}
        self.send({"jsonrpc": "2.0", "id": message["id"], "result": {"outcome": outcome}})


def answers_sleepy(message: dict[str, Any]) -> bool:
    return message.get("id") == "sleepy" and "method" not in message


def said(updates: list[dict[str, Any]]) -> str:
    return json.dumps(updates)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PLANTED-PRIVATE-KEY\n")
    return home


def test_commands_and_scripts_run_in_the_workspace_container_and_cancel_kills_inside(
    agent_env: dict[str, str],
    heron_home: Path,
    workspace: Path,
    home: Path,
    tmp_path: Path,
    image: tuple[str, str],
) -> None:
    name, os_id = image
    configure(heron_home, workspace, name)
    marker = sleep_marker(30)
    look = (
        f"cat /etc/os-release; echo at=$(pwd); echo made > made.txt; "
        f"cat {home}/.ssh/id_rsa 2>/dev/null || echo NO-KEY-HERE"
    )
    script = (
        "import sys, heron_tools\n"
        "print(open('/etc/os-release').read().split()[0], sys.executable)\n"
        "print('readme:', heron_tools.read_file(path='README.md').count('# sample'))\n"
    )
    env = scripted(
        {**agent_env, "HOME": str(home), "HERON_MODE": "full-access"},
        tmp_path,
        look=call("terminal", command=look),
        script=call("execute_code", code=script),
        sleep=call("terminal", command=f"sleep {marker}"),
    )
    container = container_name(workspace, heron_home)
    try:
        with Agent(env, cwd=workspace) as agent:
            agent.initialize()
            opened = agent.request("session/new", {"cwd": str(workspace), "mcpServers": []})
            session = opened["result"]["sessionId"]
            assert f"commands run in a container (Podman or Docker, {name}, no network)" in (
                json.dumps(opened["result"]["modes"])
            )
            stop, updates = agent.prompt(session, "look", timeout=120)
            text = said(updates)
            assert stop == "end_turn" and f"ID={os_id}" in text, text[-4000:]
            assert f"at={workspace}" in text and "NO-KEY-HERE" in text
            assert "PLANTED-PRIVATE-KEY" not in text
            assert (workspace / "made.txt").read_text() == "made\n"  # on the host
            assert "Starting container" in text  # the start, shown as a notice
            assert exists(container)

            stop, updates = agent.prompt(session, "script", timeout=60)
            text = said(updates)
            assert stop == "end_turn" and f"ID={os_id} /usr/bin/python3" in text, text[-3000:]
            assert "the container's Python" in text
            assert "readme: 1" in text  # a tool called from inside, over the socket

            agent.start_prompt(session, "sleep", request_id="sleepy")
            deadline = time.monotonic() + 30
            while not sleepers(marker) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert sleepers(marker), "the command never started"
            cancelled = time.monotonic()
            agent.notify("session/cancel", {"sessionId": session})
            answer = agent.wait_for(answers_sleepy, timeout=10)
            assert answer["result"]["stopReason"] == "cancelled"
            while sleepers(marker) and time.monotonic() - cancelled < 1.0:
                time.sleep(0.02)
            assert not sleepers(marker), "the command outlived the cancel by 1 s"
            assert time.monotonic() - cancelled < 1.0
            assert agent.close(timeout=30) == 0
        assert not exists(container)  # removed when Heron ended
    finally:
        containers.remove_container(container)


def test_a_devcontainer_json_workspace_builds_through_the_cli_and_runs_a_command(
    agent_env: dict[str, str],
    heron_home: Path,
    workspace: Path,
    tmp_path: Path,
    image: tuple[str, str],
) -> None:
    if not (CLI_FOLDER / "devcontainer").exists() or shutil.which("node") is None:
        pytest.skip("the dev container CLI is not installed: npm install --prefix tests/node")
    name, os_id = image
    configure(heron_home, workspace, None)
    (workspace / ".devcontainer").mkdir()
    (workspace / ".devcontainer" / "devcontainer.json").write_text(
        f'// the toolchain\n{{ "image": "{name}" }}\n'
    )
    env = scripted(
        {**agent_env, "HERON_MODE": "full-access", "PATH": f"{CLI_FOLDER}:{agent_env['PATH']}"},
        tmp_path,
        look=call("terminal", command="cat /etc/os-release"),
    )
    container = container_name(workspace, heron_home)
    try:
        with Agent(env, cwd=workspace) as agent:
            session = agent.start_session(workspace)
            stop, updates = agent.prompt(session, "look", timeout=120)
            text = said(updates)
            assert stop == "end_turn" and f"ID={os_id}" in text, text[-4000:]
            assert "Building the dev container" in text
            assert agent.close(timeout=30) == 0
    finally:
        containers.remove_container(container)
        spec = ContainerSpec((workspace,), Path.home(), heron_home)
        subprocess.run(
            [
                "sh",
                "-c",
                f"podman images --format '{{{{.Repository}}}}:{{{{.Tag}}}}' "
                f"| grep '^localhost/heron-dev-{spec.key}:' | xargs -r podman rmi -f",
            ],
            capture_output=True,
            check=False,
        )  # fmt: skip: the image built for this workspace


def test_an_invalid_devcontainer_json_is_named_in_the_error(
    agent_env: dict[str, str], heron_home: Path, workspace: Path, tmp_path: Path
) -> None:
    containers.require_podman()
    if not (CLI_FOLDER / "devcontainer").exists() or shutil.which("node") is None:
        pytest.skip("the dev container CLI is not installed: npm install --prefix tests/node")
    configure(heron_home, workspace, None)
    (workspace / ".devcontainer.json").write_text('{ "image": ')
    env = scripted(
        {**agent_env, "HERON_MODE": "full-access", "PATH": f"{CLI_FOLDER}:{agent_env['PATH']}"},
        tmp_path,
        look=call("terminal", command="true"),
    )
    container = container_name(workspace, heron_home)
    try:
        with Agent(env, cwd=workspace) as agent:
            session = agent.start_session(workspace)
            _stop, updates = agent.prompt(session, "look", timeout=60)
            text = said(updates)
            assert ".devcontainer.json is invalid" in text, text[-3000:]
            assert agent.close(timeout=30) == 0
    finally:
        containers.remove_container(container)


def test_an_engine_that_is_not_installed_is_named_with_the_fix(
    agent_env: dict[str, str], heron_home: Path, workspace: Path, tmp_path: Path
) -> None:
    (heron_home / "config.toml").write_text(
        f'[execution.workspaces."{workspace}"]\nbackend = "container"\nengine = "podman"\n'
        'image = "localhost/anything"\n'
    )
    env = {**agent_env, "PATH": str(tmp_path)}  # no podman on it
    with Agent(env, cwd=workspace) as agent:
        agent.initialize()
        opened = agent.request("session/new", {"cwd": str(workspace), "mcpServers": []})
        if "error" not in opened:  # answered by the front door: the next request says why
            params: dict[str, Any] = {"sessionId": opened["result"]["sessionId"], "prompt": []}
            opened = agent.request("session/prompt", params)
        message = opened["error"]["message"]
        assert "engine = 'podman', but podman is not installed" in message
        assert "apt-get install podman runc" in message
        assert agent.close() == 0
