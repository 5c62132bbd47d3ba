"""What a replay shows: live ``session/update`` payloads folded into display items, in order.

Streamed chunks of one message become one chunk; a tool call becomes its ``tool_call`` (with its
final title and input) plus its final ``tool_call_update`` (status, content, locations, output).
Notices and mode changes are live-only and are not kept. ``drain`` hands over the items that are
complete; a tool call still running holds back what follows it, so order is kept.

The usage line (``usage_update``: context used, window, cost so far) is kept here too, as the
latest one of each drain: a loaded session shows its last usage at once (``last_usage``) and its
meter goes on from that cost, instead of an empty line and a cost restarted from zero. It lives
in the transcript rather than in a column of the session record because it is what the editor
was shown, written in the same transaction as the items it follows: no schema migration, no
change to the store port or its implementations, a fork copies it with the rest, and a session
stored before usage was kept simply has none (nothing is sent, the meter starts at zero). A
replay leaves the stored usage items out (``replay``); only the last one is sent, once.

A subagent's transcript (``stream.UpdateStream``) joins its parent's when it ends (``adopt``):
each of its items kept with its own session id, as the ``session/update`` params it replays as
(``frames``). Its announcement and its end are the parent's items. An editor that takes no child
sessions is replayed the parent's alone, without the links to them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

Item = dict[str, Any]
CHUNKS = ("agent_message_chunk", "agent_thought_chunk")
KEPT_WHOLE = ("plan", "subagent_update", "session_message")  # kept as sent
USAGE = "usage_update"
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
        self._usage: Item | None = None  # the latest usage not yet drained

    def user_prompt(self, blocks: Sequence[dict[str, Any]], message_id: str) -> None:
        self._close_text()
        self._items += [
            {"sessionUpdate": "user_message_chunk", "content": block, "messageId": message_id}
            for block in blocks
        ]

    def feed(self, update: Item) -> None:
        kind = update.get("sessionUpdate")
        if kind == USAGE:  # only the latest counts: an earlier one not yet drained is dropped
            self._usage = dict(update)
            return
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
        elif kind in KEPT_WHOLE:
            self._close_text()
            self._items.append(dict(update))

    def adopt(self, session_id: str, items: Sequence[Item]) -> None:
        """A subagent's items (``session_id``'s), kept after this session's so far; its own
        subagents' kept with theirs."""
        self._close_text()
        self._items += [
            item if "sessionUpdate" not in item else {"sessionId": session_id, "update": item}
            for item in items
        ]

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
        if self._usage is not None:  # its place among the items does not matter: only the last
            done.append(self._usage)  # one stored is ever sent
            self._usage = None
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
    order; of the plans, only the last; no usage (``last_usage`` is sent after them). Only an
    item that may be a plan or a usage is decoded to be sure: the rest go out as they are."""
    usage = f'"{USAGE}"'  # the cheap look first: a call per item costs ~1 us of 20,000
    older_plans = {n for n, item in enumerate(items) if '"plan"' in item[:40] and _is(item, "plan")}
    older_plans.discard(max(older_plans, default=-1))
    return [
        item
        for n, item in enumerate(items)
        if n not in older_plans and not (usage in item[:40] and _is(item, USAGE))
    ]


def frames(session_id: str, items: Sequence[str], *, subagents: bool) -> list[bytes]:
    """The ``session/update`` params that replay ``replay(items)`` in a session: its own items
    under its id, its subagents' under theirs (left out, with the links to them, for an editor
    that takes no child sessions: ``subagents`` False)."""
    prefix = b'{"sessionId":%s,"update":' % json.dumps(session_id).encode()
    shown = replay(items)
    ended = _ended(shown) if subagents else set[str]()
    sent: list[bytes] = []
    for item in shown:
        if ended and '"subagent_update"' in item and '"running"' in item:
            item = _as_ended(item, ended)
        if item.startswith('{"sessionId"'):
            if subagents:
                sent.append(item.encode())
            continue
        if not subagents and ('"subagent_update"' in item or '"type":"session"' in item):
            unlinked = _unlinked(cast(Item, json.loads(item)))
            if unlinked is None:
                continue
            item = json.dumps(unlinked, separators=(",", ":"), ensure_ascii=False)
        sent.append(prefix + item.encode() + b"}")
    return sent


def _ended(items: Sequence[str]) -> set[str]:
    """The subagents whose end the items hold (an idle state on their parent)."""
    found: set[str] = set()
    for item in items:
        if '"subagent_update"' in item and '"idle"' in item:
            update = _update_of(cast(Item, json.loads(item)))
            state = cast(Item, update.get("state") or {})
            if state.get("state") == "idle":
                found.add(update["sessionId"])
    return found


def _as_ended(item: str, ended: set[str]) -> str:
    """A subagent's announcement as it is now: one that ended is not shown at work, nor as
    something that can be stopped, before its end is replayed."""
    decoded = cast(Item, json.loads(item))
    update = _update_of(decoded)
    if update.get("sessionUpdate") != "subagent_update" or update["sessionId"] not in ended:
        return item
    update.pop("state", None)
    update.pop("capabilities", None)
    return json.dumps(decoded, separators=(",", ":"), ensure_ascii=False)


def _update_of(item: Item) -> Item:
    """The update a stored item holds (a subagent's is kept with its session id)."""
    return cast(Item, item["update"]) if "sessionUpdate" not in item else item


def _unlinked(update: Item) -> Item | None:
    """``update`` without what names a subagent's session; None when that is all it is."""
    if update.get("sessionUpdate") == "subagent_update":
        return None
    content = update.get("content")
    if isinstance(content, list):
        kept: list[Any] = [c for c in cast(list[Any], content) if not _is_link(c)]
        return {**update, "content": kept}
    return update


def _is_link(content: Any) -> bool:
    return isinstance(content, dict) and cast(Item, content).get("type") == "session"


def last_usage(items: Sequence[str]) -> Item | None:
    """The last usage update stored, decoded; None for a session that has none (one that has
    not had a model answer yet, or one stored before usage was kept)."""
    return last_of(items, USAGE)


def last_of(items: Sequence[str], kind: str) -> Item | None:
    """The last of the session's own stored updates of ``kind`` (a subagent's are not its
    own), decoded; None when it has none."""
    for item in reversed(items):
        if _is(item, kind):
            return cast(Item, json.loads(item))
    return None


def _is(item: str, kind: str) -> bool:
    """Is the stored item an update of ``kind``? Its ``sessionUpdate`` comes first, so only an
    item that names the kind near its start is decoded."""
    return f'"{kind}"' in item[:40] and json.loads(item).get("sessionUpdate") == kind
