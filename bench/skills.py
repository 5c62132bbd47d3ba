"""The system prompt with 50 skills installed: what the model is sent on every request, read
from the fake model server's log of a real ``heron acp`` session. Skills are listed by name and
description only (their instructions load on demand), so the figure is the prompt's size, in
tokens estimated as the agent's own compaction does (``estimate_tokens``: four characters a
token)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from agent_core.context.compaction import estimate_tokens
from agent_core.messages import TextPart, UserMessage
from bench.figures import Figure
from tests.support.fake_llm import FakeLLM, Reply, Text
from tests.support.raw import RawAgent

SKILLS = 50
MODEL = "anthropic:claude-bench"
TOPICS = (
    "release notes", "database migrations", "API documentation", "PDF forms", "Docker images",
    "Terraform plans", "flaky tests", "accessibility reviews", "SQL tuning", "Kubernetes manifests",
)  # fmt: skip


def install(folder: Path, count: int) -> list[int]:
    """``count`` skills with descriptions of the length real ones have (about 200 to 300
    characters: what the skill does, then when to use it); their lengths."""
    lengths: list[int] = []
    for number in range(count):
        topic = TOPICS[number % len(TOPICS)]
        when = " or when a change touches it" * (number % 4)
        description = (
            f"Handles {topic} the way this team does: checks the current state, makes the "
            f"change in small steps, verifies it and reports what changed. Use when the user "
            f"mentions {topic}, asks for help with them{when}."
        )
        lengths.append(len(description))
        skill = folder / f"{topic.replace(' ', '-').lower()}-{number}"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(
            f"---\nname: {skill.name}\ndescription: {description}\n---\n\n"
            + "A step of the procedure.\n" * 200
        )
    return lengths


def measure(env: dict[str, str]) -> list[Figure]:
    with tempfile.TemporaryDirectory() as scratch:
        workspace = Path(scratch)
        lengths = install(workspace / ".heron" / "skills", SKILLS)
        with FakeLLM() as fake, RawAgent({**env, **fake.environment(MODEL)}) as client:
            client.initialize()
            fake.enqueue(Reply((Text("ok"),)))
            client.prompt(client.new_session(workspace), "hello")
            system = "".join(block["text"] for block in fake.requests[0].body["system"])
    tokens = estimate_tokens([UserMessage((TextPart(system),))])
    listing = system[system.index("# Skills") : system.index("# Environment")]
    return [
        Figure(
            f"system prompt with {SKILLS} skills installed",
            tokens,
            "tokens",
            3000,
            f"the whole prompt sent (the skills' section: {len(listing) // 4} tokens), "
            f"estimated at four characters a token (compaction's estimate_tokens); "
            f"descriptions of {min(lengths)}-{max(lengths)} characters, instructions of 5 KB",
        )
    ]
