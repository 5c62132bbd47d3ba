// Subagents as child sessions (ACP schema 1.34): announced on the parent with `subagent_update`,
// linked from the delegate call by `session` content, their work under their own ids. The chat
// draws them as it draws Heron's older `_meta.heron.parentToolCallId` children, and says their
// state; the `session/update` params are read by childSessions.ts, not by the SDK (1.29).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionUpdate, ToolCallStatus } from "@agentclientprotocol/sdk";
import { linkedSessions, readSessionNotification } from "../src/childSessions";
import { itemLabel, renderItem } from "../src/render";
import { canStopSubagent, childrenExpanded, subagentStateLabel, Transcript, type Item, type SubagentView, type ToolItem } from "../src/transcript";

type Wire = [sessionId: string, update: Record<string, unknown>];

/** The controller's routing: the session shown, else a child it knows (session.ts `onUpdate`). */
function feed(t: Transcript, wire: readonly Wire[], shown = "p"): Item[][] {
  return wire.map(([sessionId, update]) => {
    const { sessionId: id, update: read } = readSessionNotification({ sessionId, update });
    return id === shown ? t.apply(read) : t.applyChild(id, read);
  });
}

type Shape = string | [string, string, Shape[]];
function shape(items: readonly Item[]): Shape[] {
  return items.map((i) => (i.kind === "tool" ? [i.toolCallId, i.status, shape(i.children)] : `${i.kind}: ${"text" in i ? i.text : ""}`));
}

function tool(item: Item | undefined): ToolItem {
  assert.ok(item?.kind === "tool", JSON.stringify(item));
  return item;
}

const call = (toolCallId: string, title: string, status: ToolCallStatus = "pending") => ({ sessionUpdate: "tool_call", toolCallId, title, kind: "read", status });
const status = (toolCallId: string, s: ToolCallStatus) => ({ sessionUpdate: "tool_call_update", toolCallId, status: s });
const link = (toolCallId: string, child: string, text?: string) => ({
  sessionUpdate: "tool_call_update",
  toolCallId,
  content: [...(text ? [{ type: "content", content: { type: "text", text } }] : []), { type: "session", sessionId: child }],
});
const running = (child: string, title: string) => ({
  sessionUpdate: "subagent_update",
  sessionId: child,
  title,
  capabilities: { cancel: {} },
  state: { state: "running" },
});
const idle = (child: string, stopReason: string, error?: string) => ({
  sessionUpdate: "subagent_update",
  sessionId: child,
  capabilities: null,
  state: { state: "idle", stopReason, ...(error ? { error: { code: -32603, message: error } } : {}) },
});
const said = (messageId: string, text: string) => ({ sessionUpdate: "agent_message_chunk", messageId, content: { type: "text", text } });
const task = (child: string, text: string) => ({
  sessionUpdate: "session_message",
  messageId: `${child}-task`,
  senderSessionId: "p",
  recipientSessionId: child,
  content: [{ type: "text", text }],
});

/** test/subagents.test.ts's two subagents at once, as child sessions: the same calls, under the children's ids. */
const TWO_CHILDREN: Wire[] = [
  ["p", said("m1", "Delegating.")],
  ["p", { ...call("d1", "Find ALPHA"), kind: "other" }],
  ["p", { ...call("d2", "Find BETA"), kind: "other" }],
  ["p", status("d1", "in_progress")],
  ["p", status("d2", "in_progress")],
  ["p", running("c1", "Find ALPHA")],
  ["p", link("d1", "c1", "Subagent · starting")],
  ["p", running("c2", "Find BETA")],
  ["p", link("d2", "c2")],
  ["c1", task("c1", "Find ALPHA")],
  ["c2", task("c2", "Find BETA")],
  ["c1", call("a1", "Read alpha.txt")],
  ["c2", call("b1", "Read beta.txt")],
  ["c1", status("a1", "in_progress")],
  ["c2", status("b1", "in_progress")],
  ["p", link("d1", "c1", "Subagent · 1 request\n… Read alpha.txt")],
  ["c2", status("b1", "completed")],
  ["c1", call("a2", "Search alpha")],
  ["c1", status("a1", "completed")],
  ["c1", status("a2", "failed")],
  ["c1", said("c1-m", "ALPHA is in alpha.txt.")],
  ["p", idle("c2", "end_turn")],
  ["p", status("d2", "completed")],
  ["p", idle("c1", "end_turn")],
  ["p", status("d1", "completed")],
  ["p", said("m2", "Both found.")],
];

/** The same run in Heron's older shape: the children on the parent session, naming their parent in `_meta`. */
const under = (parent: string) => ({ _meta: { heron: { parentToolCallId: parent } } });
const TWO_FOLDED: SessionUpdate[] = [
  { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "Delegating." } },
  { sessionUpdate: "tool_call", toolCallId: "d1", title: "Find ALPHA", kind: "other", status: "pending" },
  { sessionUpdate: "tool_call", toolCallId: "d2", title: "Find BETA", kind: "other", status: "pending" },
  { sessionUpdate: "tool_call_update", toolCallId: "d1", status: "in_progress" },
  { sessionUpdate: "tool_call_update", toolCallId: "d2", status: "in_progress" },
  { sessionUpdate: "tool_call", toolCallId: "a1", title: "Read alpha.txt", kind: "read", status: "pending", ...under("d1") },
  { sessionUpdate: "tool_call", toolCallId: "b1", title: "Read beta.txt", kind: "read", status: "pending", ...under("d2") },
  { sessionUpdate: "tool_call_update", toolCallId: "a1", status: "in_progress" },
  { sessionUpdate: "tool_call_update", toolCallId: "b1", status: "in_progress" },
  { sessionUpdate: "tool_call_update", toolCallId: "d1", content: [{ type: "content", content: { type: "text", text: "Subagent · 1 request\n… Read alpha.txt" } }] },
  { sessionUpdate: "tool_call_update", toolCallId: "b1", status: "completed" },
  { sessionUpdate: "tool_call", toolCallId: "a2", title: "Search alpha", kind: "read", status: "pending", ...under("d1") },
  { sessionUpdate: "tool_call_update", toolCallId: "a1", status: "completed" },
  { sessionUpdate: "tool_call_update", toolCallId: "a2", status: "failed" },
  { sessionUpdate: "tool_call_update", toolCallId: "d2", status: "completed" },
  { sessionUpdate: "tool_call_update", toolCallId: "d1", status: "completed" },
  { sessionUpdate: "agent_message_chunk", messageId: "m2", content: { type: "text", text: "Both found." } },
];

/** A card without what only a child session has: its state line. */
const withoutState = (html: string): string =>
  html.replace(/ <span class="subagent-state"[^>]*>[^<]*<\/span>/g, "").replace(/<div class="subagent-summary">[^<]*<\/div>/g, "");

test("the standard shape draws the same nested cards as Heron's older _meta shape", () => {
  const standard = new Transcript();
  feed(standard, TWO_CHILDREN);
  const folded = new Transcript();
  for (const update of TWO_FOLDED) folded.apply(update);
  assert.deepEqual(shape(standard.items), shape(folded.items));
  assert.deepEqual(shape(standard.items), [
    "agent: Delegating.",
    [
      "d1",
      "completed",
      [
        ["a1", "completed", []],
        ["a2", "failed", []],
      ],
    ],
    ["d2", "completed", [["b1", "completed", []]]],
    "agent: Both found.",
  ]);
  const d1 = tool(standard.items[1]);
  assert.deepEqual(d1.content, [{ type: "text", text: "Subagent · 1 request\n… Read alpha.txt" }], "the link is not drawn as content");
  assert.deepEqual(
    [d1.children.map((c) => [c.title, c.toolKind]), tool(standard.items[2]).children.map((c) => c.title)],
    [
      [
        ["Read alpha.txt", "read"],
        ["Search alpha", "read"],
      ],
      ["Read beta.txt"],
    ],
  );
  // The cards are the same, but for the child's state (and its last words) said beside the toggle.
  standard.setExpanded(d1.id, true);
  folded.setExpanded(tool(folded.items[1]).id, true);
  for (const n of [1, 2]) {
    const a = renderItem(tool(standard.items[n]));
    assert.equal(withoutState(a).replace(/i\d+/g, "i"), renderItem(tool(folded.items[n])).replace(/i\d+/g, "i"));
    assert.ok(a.includes('<span class="subagent-state" data-state="done">done</span>'), a);
  }
  assert.ok(renderItem(d1).includes('<div class="subagent-summary">ALPHA is in alpha.txt.</div>'), "the child's last message");
  // Once the call's own text says it (Heron's account ends with the report), it is not said twice.
  feed(standard, [["p", link("d1", "c1", "Subagent · 2 tool calls\n\nALPHA is in alpha.txt.")]]);
  assert.ok(!renderItem(d1).includes("subagent-summary"), renderItem(d1));
  assert.equal(itemLabel(d1), "Tool call Find ALPHA, done, subagent: 2 tool calls · 1 failed, done");
  assert.ok(!standard.items.some((i) => i.kind === "user" && i.text.includes("Find ALPHA")), "the task is the child's, not shown as a prompt");
});

test("a child's update changes its parent's card; updates of unknown sessions change nothing", () => {
  const t = new Transcript();
  const [d1, announced, linked] = feed(t, [
    ["p", call("d1", "Find ALPHA")],
    ["p", running("c1", "Find ALPHA")],
    ["p", link("d1", "c1")],
  ]);
  assert.deepEqual([announced, linked], [[], d1], "announced before any call links to it: nothing to draw yet");
  assert.deepEqual(feed(t, [["c1", call("a1", "Read")]]), [d1]);
  assert.deepEqual(feed(t, [["stranger", call("x1", "Not ours")]]), [[]]);
  assert.deepEqual(feed(t, [["c1", { sessionUpdate: "plan", entries: [{ content: "its own", priority: "high", status: "pending" }] }]]), [[]]);
  assert.deepEqual(shape(t.items), [["d1", "pending", [["a1", "pending", []]]]], "the child's plan is its own");
  // A child's notice is shown, said to be the subagent's.
  const notice = feed(t, [["c1", { sessionUpdate: "notice", severity: "warning", title: "Slow", description: "retrying" }]])[0]?.[0];
  assert.ok(notice?.kind === "notice" && notice.title === "Subagent: Slow");
});

test("a grandchild's calls nest under its parent's call, inside the top-level card", () => {
  const t = new Transcript();
  const changed = feed(t, [
    ["p", call("call_0", "Find ALPHA")],
    ["p", running("c1", "Find ALPHA")],
    ["p", link("call_0", "c1")],
    ["c1", call("call_0", "Read alpha.txt")], // its own numbering: not the parent's call_0
    ["c1", status("call_0", "completed")],
    ["c1", call("call_1", "Search deeper")],
    ["c1", running("g1", "Search deeper")],
    ["c1", link("call_1", "g1")],
    ["g1", call("call_0", "Grep ALPHA")],
    ["g1", status("call_0", "completed")],
    ["c1", idle("g1", "end_turn")],
    ["c1", status("call_1", "completed")],
  ]);
  const top = tool(t.items[0]);
  assert.deepEqual(changed[6], [], "the grandchild announced: no call links to it yet");
  for (const items of [...changed.slice(3, 6), ...changed.slice(7)]) assert.deepEqual(items, [top], "every change below shows the top-level card again");
  assert.deepEqual(shape(t.items), [
    [
      "call_0",
      "pending",
      [
        ["call_0", "completed", []],
        ["call_1", "completed", [["call_0", "completed", []]]],
      ],
    ],
  ]);
  const search = tool(top.children[1]);
  assert.equal(search.subagent?.sessionId, "g1");
  assert.equal(subagentStateLabel(search.subagent), "done");
  assert.equal(tool(search.children[0]).title, "Grep ALPHA");
  // Its list toggles on its own, and the top-level card is what is drawn again.
  assert.equal(t.setExpanded(search.id, false), top);
  assert.equal(childrenExpanded(search), false);
});

test("the child's state in words, and the stop button only while it runs and may be cancelled", () => {
  const t = new Transcript();
  feed(t, [
    ["p", call("d1", "Find ALPHA")],
    ["p", running("c1", "Find <ALPHA>")],
    ["p", link("d1", "c1")],
  ]);
  const d1 = tool(t.items[0]);
  const view = (): SubagentView => d1.subagent as SubagentView;
  const html = renderItem(d1);
  assert.ok(
    html.includes(
      '<div class="subagent"><span class="subagent-state" data-state="running">running</span> <button type="button" class="stop-subagent" data-session="c1" aria-label="Stop the subagent: Find ALPHA">Stop</button></div>',
    ),
    html,
  );
  assert.equal(itemLabel(d1), "Tool call Find ALPHA, pending, subagent: running");

  const cases: [Record<string, unknown>, string | null, boolean][] = [
    [{ capabilities: null }, "running", false], // cancel withdrawn
    [{ capabilities: { cancel: {} } }, "running", true],
    [{ state: { state: "requires_action" } }, "waiting", false],
    [{ state: { state: "running" } }, "running", true],
    [{ title: "Renamed" }, "running", true], // a patch leaves the rest as it was
    [{ state: null }, null, false], // unconfirmed: no word, no button
    [idle("c1", "cancelled"), "stopped", false],
    [idle("c1", "error", "the model exploded"), "failed", false],
    [idle("c1", "max_turn_requests"), "ended (max turn requests)", false],
    [idle("c1", "end_turn"), "done", false],
  ];
  for (const [patch, label, stoppable] of cases) {
    feed(t, [["p", { sessionUpdate: "subagent_update", sessionId: "c1", ...patch }]]);
    assert.deepEqual([subagentStateLabel(view()), canStopSubagent(view())], [label, stoppable], JSON.stringify(patch));
    assert.equal(renderItem(d1).includes("stop-subagent"), stoppable, JSON.stringify(patch));
  }
  assert.equal(view().title, "Renamed");

  // Never told it may be cancelled: no button, even while it runs.
  const quiet = new Transcript();
  feed(quiet, [
    ["p", call("d1", "Quiet")],
    ["p", { sessionUpdate: "subagent_update", sessionId: "c9", state: { state: "running" } }],
    ["p", link("d1", "c9")],
  ]);
  const q = tool(quiet.items[0]);
  assert.equal(subagentStateLabel(q.subagent as SubagentView), "running");
  assert.ok(!renderItem(q).includes("stop-subagent"));

  // A failed child says why.
  feed(t, [["p", idle("c1", "error", "the <model> exploded")]]);
  assert.ok(renderItem(d1).includes('<div class="subagent-error">the &lt;model&gt; exploded</div>'));
});

test("when the agent exits, a running child is failed and can no longer be stopped", () => {
  const t = new Transcript();
  feed(t, [
    ["p", { ...call("d1", "Find ALPHA"), status: "in_progress" }],
    ["p", running("c1", "Find ALPHA")],
    ["p", link("d1", "c1")],
    ["c1", { ...call("a1", "Read"), status: "in_progress" }],
  ]);
  const d1 = tool(t.items[0]);
  assert.deepEqual(t.failUnfinishedTools(), [d1]);
  assert.deepEqual(shape(t.items), [["d1", "failed", [["a1", "failed", []]]]]);
  const view = d1.subagent as SubagentView;
  assert.deepEqual([subagentStateLabel(view), canStopSubagent(view)], ["failed", false]);
});

test("replayed in Heron's load order (the link first, the child's work after its end), the cards are the same", () => {
  const live = new Transcript();
  feed(live, TWO_CHILDREN);
  // session/load: the parent's own updates in order (its delegate calls with their final content,
  // the announcements and ends), then each child's under its id.
  const own = TWO_CHILDREN.filter(([sid]) => sid === "p");
  const theirs = TWO_CHILDREN.filter(([sid]) => sid !== "p");
  const loaded = new Transcript();
  feed(loaded, [...own, ...theirs]);
  assert.deepEqual(shape(loaded.items), shape(live.items));
  assert.equal(subagentStateLabel(tool(loaded.items[1]).subagent as SubagentView), "done");
  // A link that comes before the child is announced is kept: its calls still find the card.
  const early = new Transcript();
  feed(early, [
    ["p", { ...call("d1", "Find ALPHA"), status: "completed", content: [{ type: "session", sessionId: "c1" }] }],
    ["c1", call("a1", "Read")],
    ["p", idle("c1", "end_turn")],
  ]);
  assert.deepEqual(shape(early.items), [["d1", "completed", [["a1", "pending", []]]]]);
  // A child's calls that come before any link wait for it.
  const late = new Transcript();
  const changed = feed(late, [
    ["p", call("d1", "Find ALPHA")],
    ["p", running("c1", "Find ALPHA")],
    ["c1", call("a1", "Read")],
    ["p", link("d1", "c1")],
  ]);
  assert.deepEqual(changed[2], [], "not drawn before it has a card");
  assert.deepEqual(shape(late.items), [["d1", "pending", [["a1", "pending", []]]]]);
  // clear() forgets the children: another session's updates under that id are not ours.
  late.clear();
  assert.deepEqual(late.applyChild("c1", { sessionUpdate: "tool_call", toolCallId: "z", title: "Z" }), []);
  assert.equal(late.subagent("c1"), null);
});

test("session/update params are read with the child-session kinds the 1.29 SDK drops", () => {
  const sub = readSessionNotification({
    sessionId: "p",
    update: { sessionUpdate: "subagent_update", sessionId: "c1", title: "T", capabilities: { cancel: {} }, state: { state: "running" }, cwd: "/w" },
  });
  assert.deepEqual(sub, {
    sessionId: "p",
    update: { sessionUpdate: "subagent_update", sessionId: "c1", title: "T", capabilities: { cancel: {} }, state: { state: "running" } },
  });
  const ended = readSessionNotification({
    sessionId: "p",
    update: { sessionUpdate: "subagent_update", sessionId: "c1", capabilities: null, state: { state: "idle", stopReason: "error", error: { code: 1, message: "m" } } },
  });
  assert.deepEqual(ended.update, { sessionUpdate: "subagent_update", sessionId: "c1", capabilities: null, state: { state: "idle", stopReason: "error", error: { code: 1, message: "m" } } });
  const message = readSessionNotification({ sessionId: "c1", update: task("c1", "Find ALPHA") });
  assert.equal(message.update.sessionUpdate, "session_message");

  const linked = readSessionNotification({
    sessionId: "p",
    update: {
      sessionUpdate: "tool_call_update",
      toolCallId: "d1",
      content: [{ type: "content", content: { type: "text", text: "digest" } }, { type: "session", sessionId: "c1" }, { type: "mystery" }, { type: "session" }],
    },
  });
  assert.ok(linked.update.sessionUpdate === "tool_call_update");
  assert.deepEqual(linked.update.content, [{ type: "content", content: { type: "text", text: "digest" } }, { type: "session", sessionId: "c1" }], "unreadable items left out");
  assert.deepEqual(linkedSessions(linked.update.content), ["c1"]);

  // The other kinds pass as they came.
  const chunk = { sessionId: "p", update: said("m", "hi"), _meta: { x: 1 } };
  assert.deepEqual(readSessionNotification(chunk), chunk);
  for (const bad of [null, { update: said("m", "x") }, { sessionId: "p" }, { sessionId: "p", update: {} }, { sessionId: "p", update: { sessionUpdate: "subagent_update" } }, { sessionId: "p", update: { sessionUpdate: "tool_call", title: "no id" } }]) {
    assert.throws(() => readSessionNotification(bad), /invalid session\/update/, JSON.stringify(bad));
  }
});
