"""A session's system prompts, made from the workspace as it is when they are made: the agent's
(with a notice for each instruction file, memory file or skill left out) and a subagent's.

Blocking: the files are read and git is asked, so callers run these in a worker thread. Git's
view of the workspace may be found ahead (``look_ahead``, once the session is open), so that the
first prompt does not wait for it; ``/reload`` finds it again.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from agent_core.context.prompt import Environment, build_system_prompt
from agent_core.events import NoticeRaised

if TYPE_CHECKING:
    from agent_core.skills.catalog import Catalog


class Remembered(Protocol):
    """The agent's memory (``agent_core.memory.Memory``), as a prompt takes it."""

    def snapshot(self) -> tuple[str, list[tuple[Path, str]]]:
        """The prompt's memory section, and the files left out (why)."""
        ...


class SessionPrompts:
    def __init__(
        self,
        roots: Sequence[Path],  # the workspace first, then the additional directories
        shell: str,  # the user's shell, named in the prompt
        model: Callable[[], str],  # the session's model as it is now ("<provider>:<model>")
        repository: Callable[[Path], str],  # git's view of a folder (``HardenedGit.summary``)
        *,
        editor: tuple[str, str] | None = None,  # the editor's own system prompt: (mode, text)
        user_files: Sequence[Path] = (),  # the user's own instruction files
        memory: Remembered | None = None,  # None: memory is off
        skills: Callable[[], Catalog] | None = None,  # the skills on disk now; None: off
        switched_off: Callable[[], Collection[str]] = frozenset,  # the tools off now ([tools])
        api: Callable[[str], str] = lambda spec: "",  # the API a model spec's provider speaks
    ) -> None:
        self.cwd, self.additional = roots[0], tuple(roots[1:])
        self.shell, self.model, self.repository = shell, model, repository
        self.editor, self.user_files = editor, tuple(user_files)
        self.memory, self.skills = memory, skills
        self.switched_off, self.api = switched_off, api
        self._ahead: str | None = None  # git's view, found ahead for the first prompt
        self._prompted = False  # the first system prompt has been made
        self._seen: str | None = None  # git's view as the last prompt saw it

    def look_ahead(self) -> None:
        """Find git's view of the workspace now, for the first prompt (a few git processes)."""
        summary = self.repository(self.cwd)
        if not self._prompted:  # else the first prompt found it itself, and it may be stale
            self._ahead = summary

    def system_prompt(self) -> tuple[str, list[NoticeRaised]]:
        """The agent's system prompt, and a notice per file or skill left out."""
        found = None if self._prompted else self._ahead  # /reload finds it again
        self._prompted = True
        memory, forgotten = self.memory.snapshot() if self.memory else ("", [])
        skills = self.skills() if self.skills is not None else None
        model = self.model()
        prompt = build_system_prompt(
            self._environment(found),
            model,
            self.editor,
            user_files=self.user_files,
            memory=memory,
            skills=None if skills is None else skills.skills,
            switched_off=self.switched_off(),
            api=self.api(model),
        )
        left_out = [(f.path, f.blocked) for f in prompt.context_files if f.blocked]
        notices = [
            NoticeRaised("warning", f"Ignored {path.name}", f"{path}: {why}")
            for path, why in (*left_out, *forgotten)
        ]
        for skill in skills.left_out if skills else ():
            title = f"Ignored the skill {skill.skill}" if skill.skill else "Ignored skills"
            notices.append(NoticeRaised("warning", title, f"{skill.path}: {skill.reason}"))
        return prompt.text, notices

    def subagent_prompt(self) -> str:
        """A subagent's: its own role, the project's instructions, and the workspace as the
        session's prompt last saw it."""
        environment = self._environment(self._seen)
        return build_system_prompt(
            environment,
            self.model(),
            subagent=True,
            user_files=self.user_files,
            switched_off=self.switched_off(),
        ).text

    def _environment(self, repository: str | None) -> Environment:
        self._seen = repository or self.repository(self.cwd)
        return Environment(self.cwd, self.additional, self.shell, date.today(), self._seen)
