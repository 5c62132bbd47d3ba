"""Run every benchmark, print the table, and optionally write it to a Markdown file."""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from bench import checkpoints, mcp, safety, scripts, sessions, startup, tools, turns
from bench.figures import Figure

HEADER = "| figure | measured | budget | verdict | how |\n| --- | --- | --- | --- | --- |"


def environment(home: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("HERON_", "ANTHROPIC_", "OPENAI_"))
    }
    env.update(HERON_HOME=home, HERON_MODEL="scripted:echo")
    return env


def report(figures: list[Figure]) -> str:
    system = f"{platform.system()} {platform.release()}"
    machine = f"{os.cpu_count()} cores, Python {platform.python_version()}, {system}"
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    rows = "\n".join(f.row() for f in figures)
    return (
        "# Performance\n\n"
        "Measured by `make bench` (`python -m bench --write docs/PERFORMANCE.md`) against real\n"
        "`heron acp` processes over stdio, with the offline scripted model unless a figure\n"
        "names a provider (then against the tests' fake LLM server, with the real SDK).\n"
        "Modules are byte-compiled first, as an installed wheel has them. Budgets are from\n"
        "DESIGN.md section 5.\n\n"
        f"Last run: {stamp} on {machine}.\n\n"
        f"{HEADER}\n{rows}\n"
    )


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("--write", type=Path, help="also write the report to this Markdown file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        env = environment(home)
        figures = (
            startup.measure(env)
            + turns.measure(env)
            + tools.measure(env)
            + sessions.measure(env)
            + mcp.measure(env)
            + scripts.measure(env)
            + safety.measure(env)
            + checkpoints.measure(env)
        )
    text = report(figures)
    sys.stdout.write(text)
    if args.write:
        args.write.write_text(text)
    return 0 if all(f.within_budget for f in figures) else 1


if __name__ == "__main__":
    raise SystemExit(main())
