"""The ``Tool`` port, what a tool gets to work with, and helpers every tool shares."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from msgspec import Struct, field

from agent_core.approval.gate import Checkpointer
from agent_core.approval.permissions import Permissions
from agent_core.diagnostics.model import Diagnostics
from agent_core.errors import ToolError
from agent_core.events import Event, ToolKind
from agent_core.messages import ImagePart
from agent_core.ports.questions import Questioner
from agent_core.ports.runner import CommandRunner
from agent_core.ports.workspace import Workspace, resolve
from agent_core.safety.sandbox.confinement import Launcher
from agent_core.tools.arguments import made_schema

if TYPE_CHECKING:
    from pydantic import BaseModel

Reporter = Callable[[Event], Awaitable[None]]
SessionSearcher = Callable[[str, int], Awaitable[list[str]]]  # query, limit -> one line per hit
Spender = Callable[[float], Event]  # a cost in USD added to the session's -> the usage to report


class FileTracker:
    """What the agent last saw of each file, so an edit never overwrites changes it has not read."""

    def __init__(self) -> None:
        self._seen: dict[Path, str] = {}

    def saw(self, path: Path, text: str) -> None:
        self._seen[path] = _digest(text)

    def stale(self, path: Path, current: str) -> str | None:
        """Why an edit of ``path`` must wait for a fresh read, or None."""
        seen = self._seen.get(path)
        if seen is None:
            return f"Read {path} before editing it."
        if seen != _digest(current):
            return (
                f"{path} changed since you last read it (in the editor or on disk). Read it again."
            )
        return None


class ChangeLog:
    """The files one tool call wrote through the edit path, with the text it wrote: what
    after-edit hooks are given, and what their changes are measured against."""

    def __init__(self) -> None:
        self.written: dict[Path, str] = {}

    def wrote(self, path: Path, text: str) -> None:
        self.written[path] = text


class ToolContext(Struct, frozen=True):
    call_id: str
    workspace: Workspace
    permissions: Permissions
    report: Reporter
    runner: CommandRunner  # where commands run
    sandbox: Launcher  # the OS sandbox (Confinement), or what stands in for it
    files: FileTracker = field(default_factory=FileTracker)
    search_sessions: SessionSearcher | None = None
    checkpoints: Checkpointer | None = None
    spend: Spender | None = None  # the loop's: work a tool paid for (a subagent's requests)
    diagnostics: Diagnostics | None = None  # what edited files' language servers say
    questions: Questioner | None = None  # None: questions go to the user as the reply
    changes: ChangeLog | None = None  # the running call's writes, when hooks follow them

    def path(self, raw: str) -> tuple[Path, bool]:
        """``raw`` resolved against the session's roots (symlinks too), and whether it is inside."""
        return resolve(raw, self.workspace.roots)

    def shown(self, path: Path) -> str:
        """``path`` as the user reads it: relative to the workspace root when inside it."""
        root = self.workspace.roots[0]
        return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


class ArgumentModel(Protocol):
    """What the loop needs of a tool's argument type: its JSON schema and a validator.

    A pydantic model class is one; ``SchemaArguments`` is one for a schema given as data.
    """

    def model_json_schema(self) -> dict[str, Any]: ...

    def model_validate(self, obj: Any) -> Any: ...


class SchemaArguments(Struct, frozen=True):
    """Arguments described by a JSON schema someone else wrote (an MCP server's), and checked
    by them: here they only need to be an object."""

    schema: dict[str, Any]

    def model_json_schema(self) -> dict[str, Any]:
        return self.schema

    def model_validate(self, obj: Any) -> Any:
        if not isinstance(obj, dict):
            raise ToolError("Arguments must be a JSON object.")
        return cast(dict[str, Any], obj)


def arguments_schema(arguments: type[BaseModel] | ArgumentModel) -> dict[str, Any]:
    """A tool's JSON schema for its arguments; a pydantic model's is made once per process
    (every session's agent asks for every tool's), or made ahead (``arguments.py``)."""
    return (
        _model_schema(arguments) if isinstance(arguments, type) else arguments.model_json_schema()
    )


@functools.cache
def _model_schema(model: type[BaseModel]) -> dict[str, Any]:
    made = made_schema(model)  # a built-in tool's, made ahead
    return made if made is not None else model.model_json_schema()


class ToolOutput(Struct, frozen=True):
    """A result with more than text: images the model may see, or a ``reply`` that ends the
    turn: the agent's answer to the user, whose next prompt continues (a question only the
    user can answer, asked where the editor has no other way to ask it)."""

    text: str
    images: tuple[ImagePart, ...] = ()
    reply: str | None = None


class Tool(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def kind(self) -> ToolKind: ...

    @property
    def read_only(self) -> bool:
        """Read-only calls of one response run concurrently."""
        ...

    @property
    def arguments(self) -> type[BaseModel] | ArgumentModel:
        """The argument model; its JSON schema is what the model sees."""
        ...

    def title(self, arguments: Mapping[str, Any]) -> str:
        """How the call reads in the editor: "Read src/app.py", "Run `pytest -q`".

        ``arguments`` may be partial (still streaming): use ``.get``.
        """
        ...

    async def run(self, arguments: Any, context: ToolContext) -> str | ToolOutput:
        """The result text for the model; raise ``ToolError`` for a failure it should see."""
        ...


Toolset = Mapping[str, Tool]


def call_title(name: str, arguments: Mapping[str, Any], tools: Toolset) -> str:
    """How a call reads in the editor; the tool name until its arguments make sense."""
    tool = tools.get(name)
    try:
        return tool.title(arguments) if tool else name
    except (KeyError, TypeError, ValueError, AttributeError):
        return name


def require_inside(context: ToolContext, raw: str) -> Path:
    """A path the agent may read without asking: inside the session's roots."""
    path, inside = context.path(raw)
    if not inside:
        roots = ", ".join(str(r) for r in context.workspace.roots)
        raise ToolError(f"{path} is outside the workspace ({roots}).")
    return path


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
