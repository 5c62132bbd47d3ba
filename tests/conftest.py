from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fake_llm import MODELS, FakeLLM


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
