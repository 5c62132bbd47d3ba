from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_llm import MODELS, FakeLLM
from tests.support.raw import RawAgent


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def heron_home(tmp_path: Path) -> Path:
    home = tmp_path / "heron-home"
    home.mkdir()
    return home


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "workspace"
    root.mkdir()
    (root / "README.md").write_text("# sample\n")
    return root


@pytest.fixture
def agent_env(heron_home: Path) -> dict[str, str]:
    """The environment ``heron acp`` runs with in tests: its own home, the echo script model."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("HERON_", "ANTHROPIC_", "OPENAI_"))
    }
    env.update(HERON_HOME=str(heron_home), HERON_MODEL="scripted:echo")
    return env


@pytest.fixture
def user(tmp_path: Path, agent_env: dict[str, str]) -> dict[str, str]:
    """A user's environment without a model or a key (editors start Heron like this); each test
    adds what its editor sets."""
    home = tmp_path / "user"
    home.mkdir()
    env = {**agent_env, "HOME": str(home)}
    env.pop("HERON_MODEL")
    return env


@pytest.fixture
def env_model() -> str:
    """The model ``env`` names (a module overrides this fixture for another)."""
    return MODELS["anthropic"]


@pytest.fixture
def env_config() -> str | None:
    """What ``env`` writes as ``$HERON_HOME/config.toml`` (a module overrides this fixture)."""
    return None


@pytest.fixture
def env(
    agent_env: dict[str, str],
    heron_home: Path,
    fake: FakeLLM,
    env_model: str,
    env_config: str | None,
) -> dict[str, str]:
    """``agent_env`` with every provider pointed at the fake LLM server, naming ``env_model``."""
    if env_config is not None:
        (heron_home / "config.toml").write_text(env_config)
    return {**agent_env, **fake.environment(env_model)}


@pytest.fixture
def capabilities() -> dict[str, Any]:
    """What ``agent`` advertises in ``initialize`` (a module overrides this fixture)."""
    return {}


@pytest.fixture
def agent(env: dict[str, str], capabilities: dict[str, Any]) -> Iterator[RawAgent]:
    """``heron acp`` on ``env`` through a raw client, initialized; stopped after the test."""
    with RawAgent(env) as agent:
        agent.initialize(capabilities)
        yield agent


@pytest.fixture
def session_id(agent: RawAgent, workspace: Path) -> str:
    """A new session of ``agent`` in ``workspace``."""
    return agent.new_session(workspace)


@pytest.fixture(params=list(MODELS))
def provider(request: pytest.FixtureRequest) -> str:
    """Each provider API in turn (``MODELS`` names a model of it)."""
    return str(request.param)


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    """The fake model server, on a free port of 127.0.0.1 (``fake.environment`` points at it)."""
    with FakeLLM() as server:
        yield server


@pytest.fixture
def bubblewrap() -> None:
    """This machine's real sandbox, required (see ``tests.support.sandbox``)."""
    from tests.support.sandbox import require_bubblewrap

    require_bubblewrap()
