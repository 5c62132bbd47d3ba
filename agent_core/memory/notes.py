"""What the agent remembers across sessions: two small Markdown files under ``$HERON_HOME``.

``notes.md`` holds what the agent learned about its work (the project's quirks, commands that
work); ``user.md`` what it learned about the user (preferences, how they like answers). Each is
a list of one-line entries (``- ...``) with a size cap, which the ``memory`` tool adds to,
replaces and removes from, and which the user may edit by hand. A session's system prompt
carries the files as they were when it started (so its cached prefix stays byte-stable);
a write reaches the disk at once and the next session's prompt.

A change is proposed first (``propose``: the file as it would be, nothing written), shown and
approved (``safety.policy.MemoryWrite``), then written (``write``). Every proposal is screened
as the whole file it would make, not entry by entry, since later prompts read the entries run
together: a file that reads like a prompt injection (``safety.injection``) or holds a secret,
whole or split over entries (``safety.secrets.secret_in_text``), is refused, and why goes back
to the model. The prompt's snapshot screens the files again, for what was written by hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal, Protocol

from msgspec import Struct

from agent_core.errors import ToolError
from agent_core.files.atomic import write_atomically
from agent_core.memory.settings import MemorySettings
from agent_core.safety.injection import screen
from agent_core.safety.secrets import secret_in_text

Kind = Literal["notes", "user"]
Action = Literal["add", "replace", "remove"]
FILES: dict[Kind, str] = {"notes": "notes.md", "user": "user.md"}
ABOUT: dict[Kind, str] = {
    "notes": "Notes you keep about your work",
    "user": "What you know about the user",
}


class Change(Struct, frozen=True):
    kind: Kind
    path: Path
    old: str  # the file as it was read when the change was proposed
    new: str


class Memory:
    def __init__(self, folder: Path, limits: dict[Kind, int]) -> None:
        self.folder = folder
        self._limits = limits

    def path(self, kind: Kind) -> Path:
        return self.folder / FILES[kind]

    def read(self, kind: Kind) -> str:
        try:
            return self.path(kind).read_text(encoding="utf-8", errors="replace")
        except (FileNotFoundError, NotADirectoryError):  # nothing remembered yet
            return ""

    def propose(self, kind: Kind, action: Action, text: str = "", match: str = "") -> Change:
        """What ``action`` would make of ``kind``'s file, screened whole; nothing is written.
        Raises ``ToolError`` with what is wrong: an entry not found, the cap, the screens."""
        old = self.read(kind)
        entries = _entries(old)
        if action == "add":
            entries.append(_entry(text))
        elif not match:
            raise ToolError(f"{action} needs match: a part of the entry meant.")
        elif action == "replace":
            entries[_find(entries, match, kind)] = _entry(text)
        else:
            del entries[_find(entries, match, kind)]
        new = "".join(f"- {entry}\n" for entry in entries)
        limit = self._limits[kind]
        if len(new) > limit:
            raise ToolError(
                f"{FILES[kind]} would be {len(new):,} characters, over its {limit:,} limit: "
                "replace or remove entries first."
            )
        if problem := self._refused(kind, action, old, new):
            raise ToolError(f"Not remembered: with this change {problem}.")
        return Change(kind, self.path(kind), old, new)

    def _refused(self, kind: Kind, action: Action, old: str, new: str) -> str | None:
        """Why the screens refuse ``kind``'s file going from ``old`` to ``new``: the file read as
        a whole, then both files read together, as later system prompts carry them. A removal
        from a file that fails already is let through: it can only help."""
        before: dict[Kind, str] = {k: old if k == kind else self.read(k) for k in FILES}
        if action == "remove" and (refusal(old) or refusal(_together(before))):
            return None
        if problem := refusal(new):
            return f"{FILES[kind]}, read as a whole, {problem.removeprefix('it ')}"
        if problem := refusal(_together({**before, kind: new})):
            return f"{' and '.join(FILES.values())}, read together, {problem.removeprefix('it ')}"
        return None

    def write(self, change: Change) -> None:
        """Write a proposed change, unless the file changed since it was proposed."""
        if self.read(change.kind) != change.old:
            raise ToolError(
                f"Not remembered: {FILES[change.kind]} changed meanwhile. Propose it again."
            )
        try:
            write_atomically(change.path, change.new.encode("utf-8"))
        except OSError as exc:
            raise ToolError(
                f"Not remembered: {self.folder} cannot be written ({exc.strerror})."
            ) from exc

    def snapshot(self) -> tuple[str, list[tuple[Path, str]]]:
        """The prompt's memory section as the files are now, and the files left out (why)."""
        sections: list[str] = []
        left_out: list[tuple[Path, str]] = []
        kept: dict[Kind, str] = {}
        for kind in FILES:
            try:
                text = self.read(kind).strip()
            except OSError as exc:
                left_out.append((self.path(kind), f"unreadable: {exc.strerror}"))
                continue
            if not text:
                continue
            if problem := refusal(text):
                left_out.append((self.path(kind), problem))
                continue
            if kept and (problem := refusal(_together({**kept, kind: text}))):
                after = " and ".join(FILES[k] for k in kept)
                left_out.append(
                    (self.path(kind), f"read after {after}, {problem.removeprefix('it ')}")
                )
                continue
            kept[kind] = text
            limit = self._limits[kind]
            shown = text if len(text) <= limit else text[:limit] + "\n[cut at its size limit]"
            sections.append(f"## {ABOUT[kind]} ({kind})\n{shown}")
        return "\n\n".join(sections), left_out


def refusal(text: str) -> str | None:
    """Why ``text`` must not be kept in memory (it reaches every later system prompt), or None:
    it reads like a prompt injection, or it holds a secret."""
    if problem := screen(text):
        return problem
    if kind := secret_in_text(text):
        return f"it holds {kind}, which must not be kept in memory"
    return None


def _together(texts: Mapping[Kind, str]) -> str:
    """The files' texts in the order the prompt carries them."""
    return "\n".join(texts[kind] for kind in FILES if kind in texts)


def _entries(text: str) -> list[str]:
    """A file's entries: its non-empty lines, without their bullets (the user may write either)."""
    lines = (line.strip() for line in text.splitlines())
    return [line.removeprefix("- ").removeprefix("* ").strip() for line in lines if line]


def _entry(text: str) -> str:
    entry = " ".join(text.split())
    if not entry:
        raise ToolError("An empty entry: say what to remember.")
    if problem := refusal(entry):
        raise ToolError(f"Not remembered: {problem}.")
    return entry


def _find(entries: list[str], match: str, kind: Kind) -> int:
    found = [n for n, entry in enumerate(entries) if match and match in entry]
    if len(found) != 1:
        how = "No entry" if not found else f"{len(found)} entries"
        raise ToolError(f"{how} of {FILES[kind]} contain {match!r}: quote one entry exactly.")
    return found[0]


class MemoryHome(Protocol):
    """What ``memory_of`` reads of the settings (``agent_core.config.Settings``)."""

    @property
    def home(self) -> Path: ...
    @property
    def memory(self) -> MemorySettings: ...


def memory_of(settings: MemoryHome) -> Memory | None:
    """The agent's memory files under the home, unless ``[memory] enabled = false``."""
    if not settings.memory.enabled:
        return None
    limits: dict[Kind, int] = {
        "notes": settings.memory.notes_chars,
        "user": settings.memory.user_chars,
    }
    return Memory(settings.home / "memory", limits)
