"""First prompts against the fake model server, with each provider's real SDK: one sent the
moment ``session/new`` answers in a fresh process, and a second session's first prompt next to
a later prompt of the same session. The agent's time is what the editor waits for, less the
model server's own time. Also the memory of an idle process whose session has a real provider,
and how long other requests wait while that first prompt loads what it needs.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bench.figures import Figure
from bench.startup import peak_rss_mb, pointed_at
from tests.support.fake_llm import FakeLLM, Reply, Text
from tests.support.raw import RawAgent

SAMPLES = 15  # a ratio of two ~6 ms figures: enough of them that the noise averages out
FRESH = 5  # fresh processes per first-prompt figure: a machine shared with others swings them
# A ratio of two ~8 ms figures, each from a fresh process: with 5 it read anywhere from 1.1 to
# 1.3 on one tree from run to run, too wide for its 1.2 budget.
SETTLED_FRESH = 11
PAUSE = 0.3  # seconds between an answer and the next prompt (a process that idles is slower)
IDLE_MB = {"anthropic": 89, "openai": 63, "openai-chat": 63}  # the provider's SDK loaded
SDKS = {"anthropic": "anthropic", "openai": "openai", "openai-chat": "openai"}
SETTLED = 1.0  # seconds between `session/new` answering and a prompt sent once it has settled
PROBES = 75  # requests sent while a first prompt loads: 1.5 s and more
MODELS = {
    "anthropic": "anthropic:claude-bench",
    "openai": "openai:gpt-bench",
    "openai-chat": "openai-chat:bench-model",
}


def agent_time(agent: RawAgent, fake: FakeLLM, session_id: str) -> float:
    """Seconds the editor waits for a one-request prompt, less the model server's own time."""
    fake.enqueue(Reply((Text("Hello there."),)))
    started = time.perf_counter()
    agent.prompt(session_id, "hi")
    waited = time.perf_counter() - started
    record = fake.requests[-1]
    return waited - (fake.finished(record) - record.started_at)


def longest_wait(agent: RawAgent, fake: FakeLLM, session_id: str) -> float:
    """Seconds of the slowest answer to a cheap request sent every 20 ms while a first prompt,
    sent the moment ``session/new`` answered, loads what it needs and runs: how long a cancel
    would wait to be read."""
    fake.enqueue(Reply((Text("Hello there."),)))
    agent.start_prompt(session_id, "hi", request_id="first")
    waits: list[float] = []
    for n in range(PROBES):
        started = time.perf_counter()
        agent.request("heron/no_such_method", {"n": n}, check=False)  # answered: method not found
        waits.append(time.perf_counter() - started)
        time.sleep(0.02)
    agent.wait_for(lambda m: m.get("id") == "first", timeout=30)
    return max(waits)


def sdk_import(module: str) -> tuple[float, float]:
    """(seconds a fresh interpreter takes to import ``module``, its peak RSS in MB then). The
    memory is what the SDK costs any agent in Python: the floor under the idle rows."""
    # Read by the child itself, as ``startup.peak_rss_mb`` reads it: importing that here would
    # add the bench's own modules to the figure.
    peak = "next(s.split()[1] for s in open('/proc/self/status') if s.startswith('VmHWM:'))"
    code = (
        f"import time; t = time.perf_counter(); import {module}; "
        f"print(time.perf_counter() - t, {peak})"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True, text=True)
    seconds, kb = run.stdout.split()
    return float(seconds), int(kb) / 1024


def settled_over_later(
    run_env: dict[str, str], workspace: Path, agent: Sequence[str], fake: FakeLLM
) -> tuple[float, float]:
    """(a prompt sent SETTLED s after `session/new` in a fresh process, a later prompt's) agent
    time, in seconds."""
    with RawAgent(run_env, check_schema=False, command=agent) as fresh:
        fresh.initialize()
        session_id = fresh.new_session(workspace)
        time.sleep(SETTLED)
        settled = agent_time(fresh, fake, session_id)
        time.sleep(PAUSE)
        return settled, agent_time(fresh, fake, session_id)


def measure(env: dict[str, str], workspace: Path, agent: Sequence[str]) -> list[Figure]:
    figures: list[Figure] = []
    for provider, model in MODELS.items():
        with FakeLLM() as fake:
            run_env = {**env, **fake.environment(model)}
            command = pointed_at(agent, fake.url)
            at_once: list[float] = []
            stalls: list[float] = []
            settled: list[tuple[float, float]] = []
            imports: list[tuple[float, float]] = []
            for _ in range(SETTLED_FRESH):
                settled.append(settled_over_later(run_env, workspace, command, fake))
            for _ in range(FRESH):
                # Right before the prompt sent at once, so that both see the machine as it is.
                imports.append(sdk_import(SDKS[provider]))
                with RawAgent(run_env, check_schema=False, command=command) as fresh:
                    fresh.initialize()
                    at_once.append(agent_time(fresh, fake, fresh.new_session(workspace)))
                with RawAgent(run_env, check_schema=False, command=command) as fresh:
                    fresh.initialize()
                    stalls.append(longest_wait(fresh, fake, fresh.new_session(workspace)))
            firsts, laters, rss = [], [], []
            with RawAgent(run_env, check_schema=False, command=command) as warm:
                warm.initialize()
                agent_time(warm, fake, warm.new_session(workspace))
                for _ in range(SAMPLES):
                    session_id = warm.new_session(workspace)
                    time.sleep(PAUSE)  # the editor shows the new session; the user types
                    firsts.append(agent_time(warm, fake, session_id))
                    time.sleep(PAUSE)  # the same pause before a later prompt: equal footing
                    laters.append(agent_time(warm, fake, session_id))
            with RawAgent(run_env, check_schema=False, command=command) as idle:
                idle.initialize()
                idle.new_session(workspace)
                time.sleep(1.5)  # what loads after session/new has loaded
                rss.append(peak_rss_mb(idle.proc.pid))
        first, later = statistics.median(firsts), statistics.median(laters)
        sdk = statistics.median(s for s, _ in imports)
        sdk_mb = statistics.median(mb for _, mb in imports)
        settled_first = statistics.median(s for s, _ in settled)
        settled_later = statistics.median(lt for _, lt in settled)
        figures += [
            Figure(
                f"first prompt, sent the moment `session/new` answers ({provider})",
                statistics.median(at_once) * 1000,
                "ms",
                round(sdk * 1000 + 60, 1),
                f"a fresh process; editor-observed time minus the model server's own; median of "
                f"{FRESH}; budget: `import {SDKS[provider]}` in a fresh interpreter, "
                f"{sdk * 1000:.1f} ms "
                f"(median of {FRESH}, each timed just before one of the fresh processes), + 60 ms",
            ),
            Figure(
                f"first prompt, sent {SETTLED:g} s after `session/new`, over a later one "
                f"({provider})",
                settled_first / settled_later,
                "x",
                1.2,
                f"a fresh process; {settled_first * 1000:.1f} ms against "
                f"{settled_later * 1000:.1f} ms (the next prompt, after {PAUSE:g} s), "
                f"editor-observed minus the model server's time; median of {SETTLED_FRESH}",
            ),
            Figure(
                f"a second session's first prompt over a later one ({provider})",
                first / later,
                "x",
                1.2,
                f"same process, each after a {PAUSE:g} s pause; {first * 1000:.1f} ms against "
                f"{later * 1000:.1f} ms, editor-observed minus the model server's time; "
                f"median of {SAMPLES}",
            ),
            Figure(
                f"longest wait for an answer while that first prompt loads ({provider})",
                statistics.median(stalls) * 1000,
                "ms",
                None,
                "a fresh process; the slowest of the answers to a request sent every 20 ms "
                "from the prompt on, for 1.5 s (how long a cancel would wait to be read); "
                f"median of {FRESH}",
            ),
            Figure(
                f"peak RSS, idle after `session/new` ({provider})",
                statistics.median(rss),
                "MB",
                IDLE_MB[provider],
                f"VmHWM 1.5 s after `session/new`, the provider's SDK loaded; `import "
                f"{SDKS[provider]}` alone in a fresh interpreter: {sdk_mb:.1f} MB (median of "
                f"{FRESH}, this run)",
            ),
        ]
    return figures
