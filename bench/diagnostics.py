"""Diagnostics after edits: how long an edit's result waits for them with a warm language
server, what a session with one server running costs in memory, and what starting a server in
the sandbox costs over starting it unconfined.

Each figure edits the same file back and forth through `heron acp` (edits accepted) against the
fake model server. An edit's round is the time from the end of the model response that asks for
it to the arrival of the next request, which carries the result; the wait for diagnostics is
that round with diagnostics on minus the same round with them off. ruff answers a pull request
in ~1-2 ms, so its figure is almost all Heron's own (the LSP client, two requests per edit:
before and after); basedpyright's includes its own analysis and is shown for context.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from agent_core.diagnostics.launching import ServerLaunch, ServerLauncher
from agent_core.diagnostics.servers import LanguageServerSpec
from agent_core.safety.sandbox.settings import SandboxSettings
from bench.figures import Figure
from tests.support.editor import FakeEditor
from tests.support.fake_llm import FakeLLM, Reply, Text, ToolCall

EDITS = 12
STARTS = 21  # per mode, interleaved
BIN = Path(sys.executable).parent
SERVERS = {
    "ruff": [str(BIN / "ruff"), "server"],
    "basedpyright": [str(BIN / "basedpyright-langserver"), "--stdio"],
}
MODEL = "anthropic:claude-bench"


def rounds(env: dict[str, str], command: list[str] | None) -> tuple[list[float], float, float]:
    """Seconds per edit round (the first two, warming up, left out), Heron's and the language
    servers' RSS in MB at the end."""
    with tempfile.TemporaryDirectory() as scratch:
        home, workspace = Path(scratch) / "home", Path(scratch) / "workspace"
        home.mkdir()
        workspace.mkdir()
        (workspace / "app.py").write_text("x = 1\nprint(x)\n")
        config = "[diagnostics]\nenabled = false\n"
        if command is not None:
            config = f"[diagnostics.servers.bench]\ncommand = {json.dumps(command)}\n"
            config += "extensions = ['.py']\n"
        (home / "config.toml").write_text(config)
        edits = [("print(x)", "print(y)"), ("print(y)", "print(x)")] * (EDITS // 2)
        with FakeLLM() as fake:
            run_env = {**env, **fake.environment(MODEL), "HERON_HOME": str(home)}
            run_env["HERON_MODE"] = "accept-edits"
            fake.enqueue(Reply((ToolCall("read_file", {"path": "app.py"}),)))
            for old, new in edits:
                change = {"old_string": old, "new_string": new}
                fake.enqueue(Reply((ToolCall("edit_file", {"path": "app.py", "edits": [change]}),)))
            fake.enqueue(Reply((Text("done"),)))
            with FakeEditor(run_env, check_schema=False) as editor:
                editor.initialize()
                session_id = editor.new_session(workspace)
                editor.prompt(session_id, "edit back and forth", timeout=120)
                heron, servers = _rss(editor.proc.pid)
            requests = fake.requests
            times = [
                requests[n + 1].started_at - fake.finished(requests[n]) for n in range(1, EDITS + 1)
            ]
    return times[2:], heron, servers


def measure(env: dict[str, str]) -> list[Figure]:
    off, _, _ = rounds(env, None)
    baseline = statistics.median(off)
    figures: list[Figure] = []
    for name, command in SERVERS.items():
        on, heron, servers = rounds(env, command)
        wait = (statistics.median(on) - baseline) * 1000
        budget = 300 if name == "ruff" else None
        how = f"median of {EDITS - 2} edits, minus the same edit round without diagnostics"
        how += f" ({baseline * 1000:.1f} ms)"
        figures.append(
            Figure(f"an edit's wait for diagnostics, warm {name}", wait, "ms", budget, how)
        )
        figures.append(
            Figure(
                f"RSS of a session with {name} running",
                heron,
                "MB",
                None,
                f"Heron's process after {EDITS} edits (pygls loaded); "
                f"the server itself: {servers:.0f} MB",
            )
        )
    figures.append(confinement_cost())
    return figures


def confinement_cost() -> Figure:
    """A language server's start (launch, spawn, ``initialize`` answered) in its sandbox, over
    the same start unconfined (``confined = false``), both as a session makes them: ruff, whose
    own start is a few milliseconds, so the difference is the sandbox's."""
    import anyio

    from agent_core.safety.sandbox.detect import detect

    availability = detect(network=False)
    name = "a language server's start, confined over unconfined"
    if availability.mechanism is None:
        return Figure(name, float("nan"), "ms", 20, availability.describe())
    spec = LanguageServerSpec("ruff", (SERVERS["ruff"][0], "server"), frozenset({".py"}))
    with tempfile.TemporaryDirectory() as scratch:
        root, home = Path(scratch) / "workspace", Path(scratch) / "home"
        root.mkdir()
        home.mkdir()
        (root / ".git").mkdir()
        (root / "app.py").write_text("x = 1\n")

        def launcher(unconfined: frozenset[str]) -> ServerLauncher:
            return ServerLauncher(
                (root,),
                sandbox=SandboxSettings(),
                unconfined=unconfined,
                networked=frozenset(),
                search_path="/usr/bin:/bin",
                home=home,
                heron_home=home / ".heron",
                scrubbed=(),
                log_file=Path("/dev/null"),
            )

        def bare(spec: LanguageServerSpec) -> ServerLaunch:
            return ServerLaunch(list(spec.command), lambda: None)

        modes: dict[str, Callable[[LanguageServerSpec], ServerLaunch]] = {
            "bare": bare,
            "unconfined": launcher(frozenset({"ruff"})),
            "confined": launcher(frozenset()),
        }
        times: dict[str, list[float]] = {mode: [] for mode in modes}
        for launch in modes.values():  # warm: pygls imported, files cached
            anyio.run(_start, launch, spec, root)
        for _ in range(STARTS):
            for mode, launch in modes.items():
                times[mode].append(anyio.run(_start, launch, spec, root))
    inside, outside = statistics.median(times["confined"]), statistics.median(times["unconfined"])
    how = (
        f"{availability.mechanism.name}; median of {STARTS} starts of `ruff server` each way, "
        f"interleaved: {inside * 1000:.1f} ms in the sandbox (workspace read-only, no network), "
        f"{outside * 1000:.1f} ms unconfined (`confined = false`: tethered to Heron), "
        f"{statistics.median(times['bare']) * 1000:.1f} ms bare (the command as it is)"
    )
    return Figure(name, (inside - outside) * 1000, "ms", 20, how)


async def _start(
    launch: Callable[[LanguageServerSpec], ServerLaunch], spec: LanguageServerSpec, root: Path
) -> float:
    """Seconds from the launch to the answer to ``initialize``; the server is stopped after."""
    import time

    from agent_core.diagnostics.lsp import LanguageServer

    started = time.perf_counter()
    launched = launch(spec)
    server = LanguageServer(spec.name, launched.argv, root, launched.done)
    await server.start(30)
    took = time.perf_counter() - started
    await server.stop()
    return took


def _rss(pid: int) -> tuple[float, float]:
    """VmRSS in MB of ``pid`` and, summed, of every other process in its session's groups
    (the language servers and what they started)."""

    def rss(of: int) -> float:
        for line in Path(f"/proc/{of}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    total = 0.0
    stack = [int(c) for c in children]
    while stack:
        child = stack.pop()
        try:
            total += rss(child)
            stack += [
                int(c) for c in Path(f"/proc/{child}/task/{child}/children").read_text().split()
            ]
        except OSError:
            continue
    return rss(pid), total
