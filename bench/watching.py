"""The live workspace's cost (``[workspace] watch``): ``session/new`` and a later prompt's agent
time with the watcher on and off, and the memory of a ``heron acp`` process with a session open,
in a workspace of 50,000 files (a watcher follows only what Heron reads, never the tree)."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.figures import Figure
from bench.startup import LOADED_S
from tests.support.raw import RawAgent

FILES = 50_000
SESSIONS = 5
PROMPTS = 7
SAME = 1.2  # "no measurable difference": within the noise of a few-ms median here


def populate(root: Path, count: int) -> None:
    """``count`` small files in 100 folders, with a commands folder and an AGENTS.md."""
    for number in range(count):
        folder = root / "src" / f"pkg{number % 100}"
        if number < 100:
            folder.mkdir(parents=True)
        (folder / f"module{number}.py").write_text("x = 1\n")
    (root / ".heron" / "commands").mkdir(parents=True)
    (root / ".heron" / "commands" / "review.md").write_text("Review $ARGUMENTS\n")
    (root / "AGENTS.md").write_text("Use four spaces.\n")


def one_run(env: dict[str, str], workspace: Path, home: Path, watch: bool) -> list[float]:
    """Medians: ``session/new`` (ms), a later prompt's agent time (ms); RSS (MB)."""
    (home / "config.toml").write_text(f"[workspace]\nwatch = {'true' if watch else 'false'}\n")
    news: list[float] = []
    prompts: list[float] = []
    with RawAgent({**env, "HERON_HOME": str(home)}, check_schema=False) as agent:
        agent.initialize()
        time.sleep(LOADED_S)
        sessions: list[str] = []
        for _ in range(SESSIONS):
            started = time.perf_counter()
            sessions.append(agent.new_session(workspace))
            news.append(time.perf_counter() - started)
            agent.drain(0.3)
        agent.prompt(sessions[0], "warm up")
        for _ in range(PROMPTS):
            started = time.perf_counter()
            agent.prompt(sessions[0], "hello")
            prompts.append(time.perf_counter() - started)
        rss = _rss_mb(agent.proc.pid)
    return [statistics.median(news) * 1000, statistics.median(prompts) * 1000, rss]


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def measure(env: dict[str, str]) -> list[Figure]:
    with tempfile.TemporaryDirectory() as scratch:
        workspace, home_on, home_off = (Path(scratch) / n for n in ("ws", "on", "off"))
        for folder in (workspace, home_on, home_off):
            folder.mkdir()
        populate(workspace, FILES)
        off = one_run(env, workspace, home_off, watch=False)
        on = one_run(env, workspace, home_on, watch=True)
    where = f"a workspace of {FILES:,} files, scripted model"
    return [
        Figure(
            "`session/new`, files watched, over not watched",
            on[0] / off[0],
            "x",
            SAME,
            f"median of {SESSIONS} in {where}: {on[0]:.1f} ms against {off[0]:.1f} ms",
        ),
        Figure(
            "agent time of a later prompt, files watched, over not watched",
            on[1] / off[1],
            "x",
            SAME,
            f"median of {PROMPTS} in {where}: {on[1]:.1f} ms against {off[1]:.1f} ms",
        ),
        Figure(
            "memory with a session open, files watched",
            on[2],
            "MB",
            None,
            f"RSS of `heron acp` after {SESSIONS} sessions and {PROMPTS + 1} prompts in {where}; "
            f"not watched: {off[2]:.1f} MB",
        ),
    ]


if __name__ == "__main__":
    from bench.__main__ import environment

    with tempfile.TemporaryDirectory() as home:
        sys.stdout.write("".join(f"{figure.row()}\n" for figure in measure(environment(home))))
