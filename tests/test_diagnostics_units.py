"""Diagnostics without the editor: what counts as new, how it reads, which servers are chosen,
the editor's answer read defensively, and servers shared by the sessions of a workspace."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from acp_server.bridge.diagnostics import from_editor_diagnostics
from agent_core.diagnostics.launching import ServerLaunch
from agent_core.diagnostics.model import Diagnostic, Diagnostics, Findings, new_problems, render
from agent_core.diagnostics.pool import LanguageServerDiagnostics, ServerPool
from agent_core.diagnostics.servers import LanguageServerSpec, available

UNDEFINED = Diagnostic(3, 7, "error", "Undefined name `y`", "Ruff", "F821")
UNUSED = Diagnostic(1, 8, "warning", "`os` imported but unused", "Ruff", "F401")
RUFF = [str(Path(sys.executable).parent / "ruff"), "server"]


def test_a_problem_that_was_there_before_is_not_new_even_on_another_line() -> None:
    before = [Diagnostic(2, 7, "error", "Undefined name `y`", "Ruff", "F821")]
    twice = [UNDEFINED, Diagnostic(9, 1, "error", "Undefined name `y`", "Ruff", "F821")]
    assert new_problems(before, [UNDEFINED], warnings=False) == []
    assert new_problems(before, twice, warnings=False) == [twice[1]]  # one more than before
    assert new_problems([], [UNUSED, UNDEFINED], warnings=False) == [UNDEFINED]
    assert new_problems([], [UNUSED, UNDEFINED], warnings=True) == [UNUSED, UNDEFINED]


def test_what_an_edits_result_says() -> None:
    checks = Diagnostics(source=None, max_shown=1)  # type: ignore[arg-type]
    after = Findings((UNDEFINED, UNDEFINED), "ruff")
    assert checks.after_edit("a.py", None, after) == (
        "ruff reports 2 new problems after this edit:\n"
        "a.py:3:7: error: Undefined name `y` [Ruff F821]\n... and 1 more"
    )
    assert (
        checks.after_edit("a.py", Findings((UNDEFINED,), "ruff"), Findings((UNDEFINED,), "ruff"))
        == "No new errors from ruff."
    )
    other = Findings((UNDEFINED,), "the editor")  # not comparable: everything counts as new
    assert checks.after_edit("a.py", other, Findings((UNDEFINED,), "ruff")).startswith(
        "ruff reports 1"
    )
    assert checks.after_edit("a.md", None, Findings()) == ""  # nothing covers Markdown
    gone = Findings(source="ruff", unavailable="ruff did not start")
    assert checks.after_edit("a.py", None, gone) == "Diagnostics unavailable: ruff did not start"
    assert render("a.py", [Diagnostic(1, 1, "hint", "h")], limit=5) == "a.py:1:1: hint: h"


def test_configured_servers_take_their_file_types_over_and_defaults_fill_the_rest() -> None:
    installed = {
        "pyright-langserver": "/bin/pyright-langserver",
        "ruff": "/bin/ruff",
        "gopls": "/g",
    }
    found = available((), installed.get)
    assert [(s.name, s.command) for s in found] == [
        ("pyright", ("/bin/pyright-langserver", "--stdio")),  # basedpyright is not installed
        ("gopls", ("/g",)),
    ]
    mine = LanguageServerSpec("mine", ("my-lsp",), frozenset({".py"}))
    assert [s.name for s in available((mine,), installed.get)] == ["mine", "gopls"]
    assert available((mine,), installed.get)[0].command == ("my-lsp",)  # to fail, and say so


def test_the_editors_answer_is_read_defensively() -> None:
    answer = {
        "files": [
            {
                "path": "/w/a.py",
                "diagnostics": [
                    {"range": {"start": {"line": 0, "character": 4}}, "message": "bad", "code": 7},
                    {"range": {}, "message": "no position"},
                    "nonsense",
                ],
            },
            {"path": 3},
        ]
    }
    found = from_editor_diagnostics(answer)
    assert found == {
        Path("/w/a.py"): Findings((Diagnostic(1, 5, "error", "bad", "", "7"),), "the editor")
    }
    assert from_editor_diagnostics(None) == {} and from_editor_diagnostics({"files": 1}) == {}


@pytest.mark.anyio
async def test_sessions_of_a_workspace_share_a_server_that_stops_with_the_last(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text("print(x)\n")
    pool = ServerPool()
    told: list[str] = []

    async def notify(title: str, description: str) -> None:
        told.append(title)

    spec = LanguageServerSpec("ruff", tuple(RUFF), frozenset({".py"}))

    def launch(spec: LanguageServerSpec) -> ServerLaunch:
        return ServerLaunch(list(spec.command), lambda: None)

    sessions = [
        LanguageServerDiagnostics(
            pool, name, tmp_path, (spec,), launch, (5.0, 20.0), notify, lambda _: None
        )
        for name in ("one", "two")
    ]
    for session in sessions:
        found = await session.findings(tmp_path / "a.py", None)
        assert [d.code for d in found.diagnostics] == ["F821"]
    assert pool.running() == 1 and not told
    await sessions[0].close()
    assert pool.running() == 1
    assert (await sessions[1].workspace()).keys() == {tmp_path / "a.py"}
    await sessions[1].close()
    assert pool.running() == 0


@pytest.mark.anyio
async def test_a_file_read_for_its_diagnostics_is_read_safely(tmp_path: Path) -> None:
    """The diagnostics tool names a file the model chose: a FIFO is not waited on, and a link
    out of the workspace is not read (its text would go to the server); the server is not
    blamed for either."""
    import os

    workspace, outside = tmp_path / "workspace", tmp_path / "secret.py"
    workspace.mkdir()
    outside.write_text("KEY = 'sk-outside'\n")
    (workspace / "link.py").symlink_to(outside)
    os.mkfifo(workspace / "pipe.py")
    told: list[str] = []

    async def notify(title: str, description: str) -> None:
        told.append(title)

    spec = LanguageServerSpec("ruff", tuple(RUFF), frozenset({".py"}))
    launched: list[str] = []

    def launch(spec: LanguageServerSpec) -> ServerLaunch:
        launched.append(spec.name)
        return ServerLaunch(list(spec.command), lambda: None)

    session = LanguageServerDiagnostics(
        ServerPool(), "s", workspace, (spec,), launch, (5.0, 20.0), notify, lambda _: None
    )
    with anyio.fail_after(10):
        piped = await session.findings(workspace / "pipe.py", None)
        linked = await session.findings(workspace / "link.py", None)
    assert piped.unavailable is not None and "named pipe" in piped.unavailable
    assert linked.unavailable is not None and "outside the workspace" in linked.unavailable
    assert launched == [] and told == []  # nothing was sent to a server, nothing blamed on it
    await session.close()
