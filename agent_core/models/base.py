"""The provider-neutral ``Model`` port and the stream of events a model call produces."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Literal, Protocol

from msgspec import Struct, field
from msgspec.structs import replace

from agent_core.messages import (
    AssistantMessage,
    ImagePart,
    Message,
    TextPart,
    ToolResultPart,
    Usage,
    UserMessage,
    UserPart,
)

FinishReason = Literal["end_turn", "tool_use", "max_tokens", "refusal"]


class ToolSpec(Struct, frozen=True):
    """A tool as the model sees it: name, description and JSON schema of the arguments."""

    name: str
    description: str
    parameters: dict[str, Any]


class ModelRequest(Struct, frozen=True):
    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 8192
    reasoning_effort: str | None = None  # "low" | "medium" | "high"; None: the model's default
    # Said to the model after the history, for this request only: it is never stored and sits
    # after the prompt cache's breakpoint (a turn's remaining request budget).
    note: str | None = None
    tool_choice: Literal["auto", "none"] = "auto"  # "none": tools stay listed, none is called


class TextDelta(Struct, frozen=True):
    text: str
    kind: Literal["text_delta"] = "text_delta"


class ThinkingDelta(Struct, frozen=True):
    text: str
    kind: Literal["thinking_delta"] = "thinking_delta"


class ToolCallBegan(Struct, frozen=True):
    """The model started generating a call; its arguments follow as ``ToolArgumentsDelta``."""

    call_id: str
    name: str
    kind: Literal["tool_call_began"] = "tool_call_began"


class ToolArgumentsDelta(Struct, frozen=True):
    call_id: str
    json_fragment: str
    kind: Literal["tool_arguments_delta"] = "tool_arguments_delta"


class ResponseCompleted(Struct, frozen=True):
    """The whole assistant message, as it goes into history."""

    message: AssistantMessage
    finish: FinishReason
    usage: Usage = field(default_factory=Usage)
    kind: Literal["response_completed"] = "response_completed"


class StatusNotice(Struct, frozen=True):
    """Something the user should see while it happens: "rate limited, retrying in 4 s"."""

    severity: Literal["info", "warning", "error"]
    title: str
    description: str | None = None
    kind: Literal["status_notice"] = "status_notice"


StreamEvent = (
    TextDelta
    | ThinkingDelta
    | ToolCallBegan
    | ToolArgumentsDelta
    | StatusNotice
    | ResponseCompleted
)


class Model(Protocol):
    @property
    def name(self) -> str:
        """``<provider>:<model>``."""
        ...

    @property
    def context_window(self) -> int: ...

    @property
    def accepts_images(self) -> bool: ...

    def warm_up(self) -> None:
        """Import the SDK and build the client (blocking; run it in a worker thread)."""
        ...

    async def connect_ahead(self) -> None:
        """Open the connection the next request will use, once ``warm_up`` built the client:
        a prompt typed soon after skips the handshakes. Never raises (the request says what
        is wrong); nothing for a model without a server."""
        ...

    def cost(
        self, input_tokens: int, output_tokens: int, cache_read: int = 0, cache_write: int = 0
    ) -> float | None:
        """USD for this much usage (prompt-cache reads and writes priced apart), when known."""
        ...

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream one response; the last event is ``ResponseCompleted``.

        Raises ``ModelError`` subclasses; cancellation stops the stream at once.
        """
        ...


UNSEEN_IMAGE = "[an image was here; this model cannot see images]"


def visible(messages: tuple[Message, ...], images: bool) -> tuple[Message, ...]:
    """``messages`` as a model takes them: for one that cannot see ``images`` (the conversation
    may have begun with one that could, or a fallback took over), each image becomes a note, so
    the request stays valid and the model knows something was there."""
    if images:
        return messages
    return tuple(seen_by(m, images) for m in messages)


def seen_by(message: Message, images: bool) -> Message:
    """One message as ``visible`` gives it (the same object when nothing changes)."""
    return message if images or not isinstance(message, UserMessage) else _unseen(message)


def _unseen(message: UserMessage) -> UserMessage:
    if not any(isinstance(p, ImagePart) or getattr(p, "images", ()) for p in message.parts):
        return message
    parts: list[UserPart] = []
    for part in message.parts:
        if isinstance(part, ImagePart):
            parts.append(TextPart(UNSEEN_IMAGE))
        elif isinstance(part, ToolResultPart) and part.images:
            note = f"[{len(part.images)} image(s) left out; this model cannot see images]"
            parts.append(replace(part, content=f"{part.content}\n{note}".strip(), images=()))
        else:
            parts.append(part)
    return UserMessage(tuple(parts))
