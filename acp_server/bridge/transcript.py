"""What a replay shows: live ``session/update`` payloads folded into display items, in order.

Streamed chunks of one message become one chunk; a tool call becomes its ``tool_call`` (with its
final title and input) plus its final ``tool_call_update`` (status, content, locations, output).
Usage, notices and mode changes are live-only and are not kept. ``drain`` hands over the items
that are complete; a tool call still running holds back what follows it, so order is kept.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

Item = dict[str, Any]
CHUNKS = ("agent_message_chunk", "agent_thought_chunk")
FINAL_FIELDS = ("status", "content", "locations", "rawOutput")


def merged_meta(old: Any, new: Any) -> Item:
    """Two ``_meta`` objects as one: each namespace's keys together, the newer ones winning."""
    merged: Item = dict(old or {})
    for namespace, fields in dict(new or {}).items():
        earlier = merged.get(namespace)
        if isinstance(earlier, dict) and isinstance(fields, dict):
            merged[namespace] = {**cast(Item, earlier), **cast(Item, fields)}
        else:
            merged[namespace] = fields
    return merged


class TranscriptBuilder:
    def __init__(self) -> None:
        self._items: list[Item] = []
        self._open_calls: dict[str, tuple[Item, Item]] = {}  # id -> (tool_call, final update)
        self._pending_text: Item | None = None
        self._pending_pieces: list[str] = []

    def user_prompt(self, blocks: Sequence[dict[str, Any]]) -> None:
        self._close_text()
        self._items += [
            {"sessionUpdate": "user_message_chunk", "content": block} for block in blocks
        ]

    def feed(self, update: Item) -> None:
        kind = update.get("sessionUpdate")
        if kind in CHUNKS:
            self._chunk(update)
            return
        if kind == "tool_call":
            self._close_text()
            start: Item = {k: v for k, v in update.items() if k not in FINAL_FIELDS} | {
                "status": "pending"
            }
            final: Item = {"sessionUpdate": "tool_call_update", "toolCallId": update["toolCallId"]}
            self._open_calls[update["toolCallId"]] = (start, final)
            self._items += [start, final]
        elif kind == "tool_call_update" and update["toolCallId"] in self._open_calls:
            start, final = self._open_calls[update["toolCallId"]]
            for key, value in update.items():
                if key in ("title", "rawInput", "kind", "name"):
                    start[key] = value
                elif key in FINAL_FIELDS:
                    final[key] = value
                elif key == "_meta":  # a checkpoint, a subagent's parent: kept for the replay
                    final["_meta"] = merged_meta(final.get("_meta"), value)
            if update.get("status") in ("completed", "failed"):
                del self._open_calls[update["toolCallId"]]
        elif kind == "plan":
            self._close_text()
            self._items.append(dict(update))

    def drain(self, *, finished: bool = False) -> list[Item]:
        """The items complete so far (all of them once the turn has ``finished``)."""
        if finished:
            self._close_text()
            for _, final in self._open_calls.values():
                final.setdefault("status", "failed")
            self._open_calls.clear()
        incomplete = {id(item) for pair in self._open_calls.values() for item in pair}
        if self._pending_text is not None:
            incomplete.add(id(self._pending_text))
        ready = next(
            (n for n, item in enumerate(self._items) if id(item) in incomplete), len(self._items)
        )
        done, self._items = self._items[:ready], self._items[ready:]
        return done

    def _chunk(self, update: Item) -> None:
        pending = self._pending_text
        if pending is not None and (pending["sessionUpdate"], pending.get("messageId")) == (
            update["sessionUpdate"],
            update.get("messageId"),
        ):
            self._pending_pieces.append(update["content"].get("text", ""))
            return
        self._close_text()
        self._pending_text = {**update, "content": dict(update["content"])}
        self._pending_pieces = [update["content"].get("text", "")]
        self._items.append(self._pending_text)

    def _close_text(self) -> None:
        """The streamed message is whole: its pieces become one text, joined once."""
        if self._pending_text is not None:
            self._pending_text["content"]["text"] = "".join(self._pending_pieces)
        self._pending_text, self._pending_pieces = None, []


def replay(items: Sequence[str]) -> list[str]:
    """The updates that show a stored session again (each one's JSON, as it was stored), in
    order; of the plans, only the last. Only an item that may be a plan is decoded to be sure:
    the rest go out as they are."""
    older_plans = {n for n, item in enumerate(items) if _is_plan(item)}
    older_plans.discard(max(older_plans, default=-1))
    return [item for n, item in enumerate(items) if n not in older_plans]


def _is_plan(item: str) -> bool:
    return '"plan"' in item[:40] and json.loads(item).get("sessionUpdate") == "plan"
