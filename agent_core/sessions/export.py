"""A stored session as a document to read or to learn from: pure functions, no I/O.

- ``to_markdown``: for people. A heading with the title, workspace, model and date; each prompt
  quoted, the answer as written, thoughts folded in ``<details>``, each tool call folded with
  its input and its result (both capped), then the plan and the usage the caller read from the
  transcript (the core does not read the editor's updates).
- ``to_sharegpt``: for training and evaluation, in the shape Hermes Agent's batch runner saves
  trajectories: ``conversations`` of ``{"from", "value"}`` turns (system, human, gpt, tool);
  a gpt turn starts with a ``<think>`` block (empty when the model did not reason) and holds
  each tool call as ``<tool_call>{"name", "arguments"}</tool_call>``; a tool turn holds each
  result as ``<tool_response>{"tool_call_id", "name", "content"}</tool_response>``. Heron's own
  system prompt is not stored, so the system turn is the function-calling contract with the tool
  definitions the caller gives (and, by name, any other tool the session called).
- ``to_jsonl``: a header line describing the session, then the stored transcript, one item per
  line, exactly as stored (the updates an editor is sent on a replay; a subagent's are kept
  with its session id).

Images are not copied into any of them: a placeholder names each one.
"""

from __future__ import annotations

import contextlib
import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from agent_core.events import PlanUpdated, UsageUpdated
from agent_core.files.json_text import compact_json
from agent_core.messages import (
    AssistantMessage,
    ImagePart,
    Message,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolResultPart,
    UserMessage,
)
from agent_core.sessions.store import SessionRecord, StoredSession

MAX_INPUT_CHARS = 2_000  # a tool call's input shown in Markdown
MAX_RESULT_CHARS = 4_000  # a tool call's result shown in Markdown
MAX_RESULT_LINES = 60
GLANCE_CHARS = 60  # the argument shown beside a tool call's name
PLAN_MARKS = {"completed": "[x]", "in_progress": "[~]", "pending": "[ ]"}
SYSTEM_INTRO = (
    "You are Heron, a coding agent working in a software project for its user. You may call "
    "functions to read, search and change the project and to run commands; when none helps, "
    "answer in plain words. The functions are described as JSON within <tools></tools> tags:"
)
SYSTEM_CALLS = (
    'To call a function, write a JSON object {"name": <function name>, "arguments": <object of '
    "arguments>} within <tool_call></tool_call> tags, one pair of tags per call. Each result "
    "comes back within <tool_response></tool_response> tags, as a JSON object with the call's "
    "id, the function's name and its content."
)


# -- ShareGPT ------------------------------------------------------------------------------


def to_sharegpt(
    stored: StoredSession, *, tools: Sequence[Mapping[str, Any]] | None = None
) -> dict[str, Any]:
    """The session as one ShareGPT record. ``tools``: the definitions the model was offered
    (``name``, ``description``, ``parameters``), listed in the system turn; a tool the session
    called that they do not name is listed by its name alone."""
    names = _tool_names(stored.messages)
    turns = _Turns()
    for message in stored.messages:
        if isinstance(message, AssistantMessage):
            turns.add("gpt", _gpt_value(message))
            continue
        results = [p for p in message.parts if isinstance(p, ToolResultPart)]
        if results:
            turns.add("tool", "\n".join(_tool_response(r, names) for r in results))
        if said := _said(message):
            turns.add("human", said)
    definitions = _definitions(tools or (), names.values())
    record = stored.record
    stats = _tool_stats(stored.messages)
    return {
        "id": record.session_id,
        "conversations": [{"from": "system", "value": _system(definitions)}, *turns.turns],
        "tools": json.dumps(definitions, ensure_ascii=False),
        "metadata": {
            "session_id": record.session_id,
            "title": record.title,
            "workspace": str(record.cwd),
            "model": record.model,
            "mode": record.mode,
            "updated_at": _iso_time(record.updated_at),
        },
        "completed": _completed(stored.messages),
        "tool_stats": stats,
        "tool_error_counts": {name: s["failure"] for name, s in stats.items()},
        "source": "heron",
    }


class _Turns:
    """Turns with one value per speaker in a row: what one speaker says twice in a row (a
    prompt sent after a cancelled one) becomes one turn."""

    def __init__(self) -> None:
        self.turns: list[dict[str, str]] = []

    def add(self, speaker: str, value: str) -> None:
        if self.turns and self.turns[-1]["from"] == speaker:
            self.turns[-1]["value"] += "\n\n" + value
        else:
            self.turns.append({"from": speaker, "value": value})


def _gpt_value(message: AssistantMessage) -> str:
    thinking = "\n".join(p.text for p in message.parts if isinstance(p, ThinkingPart) and p.text)
    pieces = [f"<think>\n{thinking}\n</think>" if thinking else "<think>\n</think>"]
    if text := message.text.strip():
        pieces.append(text)
    for call in message.tool_calls:
        called = {"name": call.name, "arguments": _arguments(call)}
        pieces.append(f"<tool_call>\n{json.dumps(called, ensure_ascii=False)}\n</tool_call>")
    return "\n".join(pieces)


def _tool_response(result: ToolResultPart, names: Mapping[str, str]) -> str:
    content: Any = _result_text(result)
    if content.lstrip().startswith(("{", "[")):  # a tool that answered JSON keeps its structure
        with contextlib.suppress(ValueError):
            content = json.loads(content)
    answered = {
        "tool_call_id": result.call_id,
        "name": names.get(result.call_id, "unknown"),
        "content": content,
    }
    return f"<tool_response>\n{json.dumps(answered, ensure_ascii=False)}\n</tool_response>"


def _system(definitions: Sequence[Mapping[str, Any]]) -> str:
    listed = json.dumps(definitions, ensure_ascii=False)
    return f"{SYSTEM_INTRO}\n<tools>\n{listed}\n</tools>\n{SYSTEM_CALLS}"


def _definitions(given: Iterable[Mapping[str, Any]], called: Iterable[str]) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = [
        {
            "name": str(d["name"]),
            "description": str(d.get("description", "")),
            "parameters": dict(d.get("parameters") or {}),
        }
        for d in given
    ]
    known = {str(d["name"]) for d in listed}
    for name in sorted(set(called) - known):
        listed.append({"name": name, "description": "", "parameters": {"type": "object"}})
    return listed


def _tool_stats(messages: Sequence[Message]) -> dict[str, dict[str, int]]:
    """Per tool: its calls, those that succeeded, those that failed (or got no result)."""
    results = _results_by_call(messages)
    stats: dict[str, dict[str, int]] = {}
    for call in _calls(messages):
        counts = stats.setdefault(call.name, {"count": 0, "success": 0, "failure": 0})
        result = results.get(call.call_id)
        counts["count"] += 1
        counts["failure" if result is None or result.is_error else "success"] += 1
    return stats


def _completed(messages: Sequence[Message]) -> bool:
    """Whether the conversation ends with an answer: no call left waiting for its result."""
    last = messages[-1] if messages else None
    return isinstance(last, AssistantMessage) and not last.tool_calls and bool(last.text.strip())


# -- Markdown ------------------------------------------------------------------------------


def to_markdown(
    stored: StoredSession, *, plan: PlanUpdated | None = None, usage: UsageUpdated | None = None
) -> str:
    """The session as a Markdown document. ``plan``, ``usage``: the session's last plan and
    usage line (from its transcript), shown at the end."""
    messages = stored.messages
    results = _results_by_call(messages)
    answered = {call.call_id for call in _calls(messages)}
    blocks = _heading(stored.record)
    prompts = 0
    for message in messages:
        if isinstance(message, AssistantMessage):
            blocks += _assistant_blocks(message, results)
            continue
        if message.message_id and _said(message):
            prompts += 1
            blocks.append(f"## Prompt {prompts}")
        blocks += _user_blocks(message, answered)
    if plan is not None and plan.entries:
        marks = [f"- {PLAN_MARKS[e.status]} {_one_line(e.content)}" for e in plan.entries]
        blocks += ["## Plan", "\n".join(marks)]
    blocks += ["## Usage", _usage_lines(messages, prompts, usage)]
    return "\n\n".join(blocks) + "\n"


def _heading(record: SessionRecord) -> list[str]:
    facts = [
        f"- **Session:** `{record.session_id}`",
        f"- **Workspace:** `{record.cwd}`",
        *(f"- **Also:** `{d}`" for d in record.additional_directories),
        f"- **Model:** `{record.model or 'unknown'}`",
        f"- **Mode:** {record.mode or 'unknown'}",
        f"- **Last used:** {_when(record.updated_at)}",
    ]
    return [f"# {_one_line(record.title or 'Untitled session')}", "\n".join(facts)]


def _user_blocks(message: UserMessage, answered: set[str]) -> list[str]:
    """What the user (or Heron, in a note to the model) said; results of calls shown with
    them are left out, and one without its call is shown alone."""
    blocks: list[str] = []
    if said := _said(message):
        quoted = "\n".join(f"> {line}" if line else ">" for line in said.splitlines())
        blocks.append(quoted if message.message_id else f"_Note to the model:_\n\n{quoted}")
    for part in message.parts:
        if isinstance(part, ToolResultPart) and part.call_id not in answered:
            blocks.append(f"**Result of call `{part.call_id}`:**\n\n{_fenced(_capped(part))}")
    return blocks


def _assistant_blocks(
    message: AssistantMessage, results: Mapping[str, ToolResultPart]
) -> list[str]:
    blocks: list[str] = []
    for part in message.parts:
        if isinstance(part, ThinkingPart) and part.text.strip():
            blocks.append(_folded("Thinking", part.text.strip()))
        elif isinstance(part, TextPart) and part.text.strip():
            blocks.append(part.text.strip())
        elif isinstance(part, ToolCallPart):
            blocks.append(_tool_call_block(part, results.get(part.call_id)))
    return blocks


def _tool_call_block(call: ToolCallPart, result: ToolResultPart | None) -> str:
    status = "no result" if result is None else "failed" if result.is_error else "done"
    glance = _glance(call)
    summary = f"Tool: <code>{html.escape(call.name)}</code>"
    summary += f" {html.escape(glance)}" if glance else ""
    summary += f" ({status})"
    given = call.invalid_arguments or json.dumps(call.arguments, ensure_ascii=False, indent=2)
    body = f"Input:\n\n{_fenced(_cut(given, MAX_INPUT_CHARS, MAX_RESULT_LINES), 'json')}"
    if result is not None:
        body += f"\n\nResult:\n\n{_fenced(_capped(result))}"
    return _folded(summary, body)


def _folded(summary: str, body: str) -> str:
    return f"<details>\n<summary>{summary}</summary>\n\n{body}\n\n</details>"


def _glance(call: ToolCallPart) -> str:
    """The first short argument (a path, a command), to read beside the tool's name."""
    first = next((v for v in call.arguments.values() if isinstance(v, str) and v.strip()), "")
    first = _one_line(first)
    return first if len(first) <= GLANCE_CHARS else first[: GLANCE_CHARS - 1] + "…"


def _usage_lines(messages: Sequence[Message], prompts: int, usage: UsageUpdated | None) -> str:
    calls = list(_calls(messages))
    results = _results_by_call(messages)
    failed = sum(1 for c in calls if (r := results.get(c.call_id)) is None or r.is_error)
    responses = sum(1 for m in messages if isinstance(m, AssistantMessage))
    lines = [
        f"- Prompts: {prompts} · model responses: {responses} · tool calls: {len(calls)}"
        + (f" ({failed} failed)" if failed else "")
    ]
    if usage is None:
        lines.append("- Context and cost: not recorded")
    else:
        lines.append(f"- Context: {usage.used_tokens:,} of {usage.context_window:,} tokens")
        cost = "unknown" if usage.cost_usd is None else f"${usage.cost_usd:.4f}"
        lines.append(f"- Cost: {cost}")
    return "\n".join(lines)


def _capped(result: ToolResultPart) -> str:
    return _cut(_result_text(result), MAX_RESULT_CHARS, MAX_RESULT_LINES)


def _cut(text: str, chars: int, lines: int) -> str:
    kept = "\n".join(text.splitlines()[:lines])[:chars]
    left = len(text) - len(kept)
    return kept if left <= 0 else f"{kept}\n… ({left:,} more characters not shown)"


def _fenced(text: str, language: str = "") -> str:
    """``text`` in a code fence longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


# -- JSON Lines ----------------------------------------------------------------------------


def to_jsonl(stored: StoredSession) -> list[str]:
    """The lines (without their line ends): the header, then each stored transcript item."""
    return [compact_json(_header(stored)), *stored.transcript]


def _header(stored: StoredSession) -> dict[str, Any]:
    """What the JSON Lines export says of the session first."""
    record = stored.record
    return {
        "type": "session",
        "sessionId": record.session_id,
        "title": record.title,
        "cwd": str(record.cwd),
        "additionalDirectories": [str(d) for d in record.additional_directories],
        "model": record.model,
        "mode": record.mode,
        "thoughtLevel": record.thought_level,
        "updatedAt": _iso_time(record.updated_at),
        "messages": len(stored.messages),
        "items": len(stored.transcript),
    }


# -- shared --------------------------------------------------------------------------------


def _calls(messages: Sequence[Message]) -> Iterable[ToolCallPart]:
    for message in messages:
        if isinstance(message, AssistantMessage):
            yield from message.tool_calls


def _tool_names(messages: Sequence[Message]) -> dict[str, str]:
    return {call.call_id: call.name for call in _calls(messages)}


def _results_by_call(messages: Sequence[Message]) -> dict[str, ToolResultPart]:
    return {
        part.call_id: part
        for message in messages
        if isinstance(message, UserMessage)
        for part in message.parts
        if isinstance(part, ToolResultPart)
    }


def _said(message: UserMessage) -> str:
    """A user message's words, with a placeholder for each image."""
    pieces: list[str] = []
    for part in message.parts:
        if isinstance(part, TextPart) and part.text.strip():
            pieces.append(part.text.strip())
        elif isinstance(part, ImagePart):
            pieces.append(f"[image: {part.mime_type}]")
    return "\n\n".join(pieces)


def _result_text(result: ToolResultPart) -> str:
    images = f"\n[{len(result.images)} image(s) not included]" if result.images else ""
    return result.content + images


def _arguments(call: ToolCallPart) -> Any:
    """What the model sent: its arguments, or the text it sent when that was not an object."""
    return call.arguments if call.invalid_arguments is None else call.invalid_arguments


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _iso_time(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")


def _when(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M UTC")
