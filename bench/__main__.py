"""Run every benchmark, print the table, and optionally write it to a Markdown file."""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bench import (
    batch,
    checkpoints,
    containers,
    diagnostics,
    far_model,
    first_prompts,
    long_sessions,
    mcp,
    memory,
    safety,
    scripts,
    sessions,
    skills,
    startup,
    subagents,
    tools,
    turns,
    watching,
)
from bench.figures import Figure

HEADER = "| figure | measured | budget | verdict | how |\n| --- | --- | --- | --- | --- |"


def environment(home: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("HERON_", "ANTHROPIC_", "OPENAI_"))
    }
    env.update(HERON_HOME=home, HERON_MODEL="scripted:echo")
    return env


def reference_ms() -> float:
    """How long a bare interpreter takes to start and exit here right now, the median of 11: the
    floor under every start-up figure. On a shared machine it moves from hour to hour, and the
    figures move with it."""
    runs = []
    for _ in range(11):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        runs.append(time.perf_counter() - started)
    return statistics.median(runs) * 1000


def report(
    figures: list[Figure], agent: str | None = None, reference: tuple[float, float] | None = None
) -> str:
    system = f"{platform.system()} {platform.release()}"
    machine = f"{os.cpu_count()} cores, Python {platform.python_version()}, {system}"
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    rows = "\n".join(f.row() for f in figures)
    return (
        "# Performance\n\n"
        "Measured by `make bench` (`python -m bench --write docs/PERFORMANCE.md`) against real\n"
        f"`{agent or 'heron acp'}` processes over stdio, with the offline scripted model unless\n"
        "a figure names a provider (then against the tests' fake LLM server, with the real\n"
        "SDK). A figure of the agent's time is what the editor waits for, less the model\n"
        "server's own time. Modules are byte-compiled first, as an installed wheel has them.\n"
        "A budget is the project's target for its figure; a figure over it reads OVER BUDGET.\n"
        "`heron acp` answers `initialize` before its server has loaded, so a request sent the\n"
        "moment `initialize` is answered also waits for that load: the start-up rows measure it.\n"
        f"The figures of other methods are taken once it is done ({startup.LOADED_S:g} s after\n"
        "`initialize`).\n"
        "`python -m bench --agent '<command>'` runs the scenarios any ACP agent can run against\n"
        "another agent, for a side-by-side.\n\n"
        f"Last run: {stamp} on {machine}.\n"
        + (
            f"Machine speed: a bare `python -c pass` took {reference[0]:.1f} ms before the run and "
            f"{reference[1]:.1f} ms\nafter (the median of 11; lower is faster).\n"
            if reference
            else ""
        )
        + "\n"
        f"{HEADER}\n{rows}\n"
    )


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("--write", type=Path, help="also write the report to this Markdown file")
    parser.add_argument(
        "--agent",
        help="measure another ACP agent, given its command (e.g. 'codex-acp'), in the scenarios "
        "any agent can run: start-up, first prompts and long sessions against the fake model "
        "server, whose address it gets in ANTHROPIC_BASE_URL and OPENAI_BASE_URL, and in place "
        "of {url} in the command, for an agent configured by its options "
        "(e.g. codex-acp -c model_providers.fake.base_url='\"{url}/v1\"' ...)",
    )
    args = parser.parse_args()
    agent = tuple(shlex.split(args.agent)) if args.agent else startup.HERON_ACP
    before = reference_ms()
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as workspace:
        env, where = environment(home), Path(workspace)
        figures = (
            startup.measure(env, agent)
            + first_prompts.measure(env, where, agent)
            + long_sessions.measure(env, where, agent)
        )
        if not args.agent:  # what only Heron has
            figures += (
                turns.measure(env)
                + far_model.measure(env)
                + tools.measure(env)
                + sessions.measure(env)
                + mcp.measure(env)
                + scripts.measure(env)
                + safety.measure(env)
                + checkpoints.measure(env)
                + subagents.measure(env, where)
                + skills.measure(env)
                + diagnostics.measure(env)
                + memory.measure(env)
                + batch.measure(env)
                + containers.measure(env)
                + watching.measure(env)
            )
    text = report(figures, " ".join(agent) if args.agent else None, (before, reference_ms()))
    sys.stdout.write(text)
    if args.write:
        args.write.write_text(text)
    return 0 if all(f.within_budget for f in figures) else 1


if __name__ == "__main__":
    raise SystemExit(main())
