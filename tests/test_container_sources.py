"""The tag an image is built into (``execution.container.built_tag``): keyed by the workspace
and the file's content, and the file read by the safe-open rules, since a repository supplies
its Dockerfile or devcontainer.json."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_core.execution.container import built_tag
from agent_core.execution.engine import EngineError


def test_the_tag_follows_the_workspace_and_the_files_content(tmp_path: Path) -> None:
    workspace, other = tmp_path / "ws", tmp_path / "other"
    workspace.mkdir()
    other.mkdir()
    dockerfile = workspace / "Dockerfile"
    dockerfile.write_text("FROM debian\n")
    first = built_tag("heron", workspace, dockerfile)
    assert first.startswith("localhost/heron-") and first == built_tag(
        "heron", workspace, dockerfile
    )
    assert built_tag("heron", other, dockerfile) != first
    dockerfile.write_text("FROM alpine\n")
    assert built_tag("heron", workspace, dockerfile) != first


def test_a_planted_fifo_or_link_out_of_the_workspace_is_not_read(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / ".devcontainer").mkdir(parents=True)
    fifo = workspace / ".devcontainer" / "devcontainer.json"
    os.mkfifo(fifo)
    with pytest.raises(EngineError, match="named pipe"):
        built_tag("heron-dev", workspace, fifo)  # refused at once, never waiting for a writer
    secret = tmp_path / "secret"
    secret.write_text("key\n")
    (workspace / "Dockerfile").symlink_to(secret)
    with pytest.raises(EngineError, match="outside"):
        built_tag("heron", workspace, workspace / "Dockerfile")


def test_a_dockerfile_the_user_keeps_elsewhere_is_theirs_to_link(tmp_path: Path) -> None:
    workspace, mine = tmp_path / "ws", tmp_path / "dockerfiles"
    workspace.mkdir()
    mine.mkdir()
    (mine / "base").write_text("FROM debian\n")
    (mine / "Dockerfile").symlink_to(mine / "base")
    assert built_tag("heron", workspace, mine / "Dockerfile").startswith("localhost/heron-")
