// Subagents: a `delegate` call's children (tool calls whose `_meta.heron.parentToolCallId` names
// it) are kept and drawn inside its card, whatever order they arrive in and on replay too.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionUpdate, ToolCallStatus } from "@agentclientprotocol/sdk";
import { childrenSummary, renderItem } from "../src/render";
import { childrenExpanded, parentToolCallId, Transcript, type Item, type ToolItem } from "../src/transcript";

const under = (parent: string) => ({ heron: { parentToolCallId: parent } });

const started = (toolCallId: string, title: string, parent?: string): SessionUpdate => ({
  sessionUpdate: "tool_call",
  toolCallId,
  title,
  kind: parent ? "read" : "other",
  status: "pending",
  ...(parent ? { _meta: under(parent) } : {}),
});

const updated = (toolCallId: string, status: ToolCallStatus, meta?: Record<string, unknown>): SessionUpdate => ({
  sessionUpdate: "tool_call_update",
  toolCallId,
  status,
  ...(meta ? { _meta: meta } : {}),
});

const digest = (toolCallId: string, text: string): SessionUpdate => ({
  sessionUpdate: "tool_call_update",
  toolCallId,
  content: [{ type: "content", content: { type: "text", text } }],
});

/** The transcript's shape: top-level items, tool calls with their children, without item ids. */
type Shape = string | [string, string, Shape[]];
function shape(items: readonly Item[]): Shape[] {
  return items.map((i) => (i.kind === "tool" ? [i.toolCallId, i.status, shape(i.children)] : `${i.kind}: ${"text" in i ? i.text : ""}`));
}

function tool(item: Item | undefined): ToolItem {
  assert.ok(item?.kind === "tool", JSON.stringify(item));
  return item;
}

/** Two subagents at once: their calls interleave, some updates repeat the parent, some carry a checkpoint. */
const TWO_SUBAGENTS: SessionUpdate[] = [
  { sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "Delegating." } },
  started("d1", "Find ALPHA"),
  started("d2", "Find BETA"),
  updated("d1", "in_progress"),
  updated("d2", "in_progress"),
  started("a1", "Read alpha.txt", "d1"),
  started("b1", "Read beta.txt", "d2"),
  updated("a1", "in_progress", under("d1")),
  updated("b1", "in_progress"),
  digest("d1", "Subagent · 1 request\n… Read alpha.txt"),
  updated("b1", "completed", { heron: { checkpoint: 4 } }),
  started("a2", "Search alpha", "d1"),
  updated("a1", "completed", { heron: { checkpoint: 5, parentToolCallId: "d1" } }),
  updated("a2", "failed"),
  updated("d2", "completed"),
  updated("d1", "completed"),
  { sessionUpdate: "agent_message_chunk", messageId: "m2", content: { type: "text", text: "Both found." } },
];

test("a subagent's tool call is kept under its parent, and its updates find it there", () => {
  const t = new Transcript();
  const [parent] = t.apply(started("d1", "Find ALPHA"));
  const [shown] = t.apply(started("a1", "Read alpha.txt", "d1"));
  assert.equal(shown, parent, "a change to a child shows its parent's card again");
  assert.deepEqual(t.apply(updated("a1", "in_progress")), [parent], "an update without _meta finds the child by id");
  assert.deepEqual(t.apply(updated("a1", "completed", { heron: { checkpoint: 3 } })), [parent], "a checkpoint does not move it");
  assert.deepEqual(shape(t.items), [["d1", "pending", [["a1", "completed", []]]]]);
  const child = tool(tool(t.items[0]).children[0]);
  assert.equal(child.title, "Read alpha.txt");
  assert.equal(child.toolKind, "read");

  // A subagent's own subagent nests one level deeper; its changes still show the top-level card.
  t.apply(started("a1x", "Nested task", "a1"));
  assert.deepEqual(t.apply(started("g1", "Grep", "a1x")), [parent]);
  assert.deepEqual(shape(t.items), [["d1", "pending", [["a1", "completed", [["a1x", "pending", [["g1", "pending", []]]]]]]]]);
});

test("a top-level tool call with a checkpoint is unchanged by nesting", () => {
  const t = new Transcript();
  t.apply({ sessionUpdate: "tool_call", toolCallId: "e1", title: "Edit a.py", kind: "edit", status: "pending" });
  const [item] = t.apply(updated("e1", "completed", { heron: { checkpoint: 2 } }));
  assert.equal(item, t.items[0]);
  assert.deepEqual(shape(t.items), [["e1", "completed", []]]);
});

test("the children of two subagents running at once stay with their own parent", () => {
  const t = new Transcript();
  for (const update of TWO_SUBAGENTS) t.apply(update);
  assert.deepEqual(shape(t.items), [
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
  const d1 = tool(t.items[1]);
  assert.deepEqual(d1.content, [{ type: "text", text: "Subagent · 1 request\n… Read alpha.txt" }], "the digest is the parent's own content");
});

test("a call whose parent is unknown shows at the top level, and stays there", () => {
  const t = new Transcript();
  t.apply(started("x1", "Read early.txt", "not-yet"));
  t.apply(started("self", "Loop", "self"));
  t.apply(started("not-yet", "Late parent"));
  t.apply(updated("x1", "completed", under("not-yet")));
  // An update for a call never started is shown too: under the parent it names, when known.
  t.apply({ sessionUpdate: "tool_call_update", toolCallId: "u1", title: "Read late.txt", status: "in_progress", _meta: under("not-yet") });
  t.apply({ sessionUpdate: "tool_call", toolCallId: "m1", title: "Odd meta", _meta: { heron: "d1" } });
  assert.deepEqual(shape(t.items), [
    ["x1", "completed", []],
    ["self", "pending", []],
    ["not-yet", "pending", [["u1", "in_progress", []]]],
    ["m1", "pending", []],
  ]);
  assert.equal(parentToolCallId({ heron: { parentToolCallId: 7 } }), null);
  assert.equal(parentToolCallId(null), null);
  assert.equal(parentToolCallId({ heron: { checkpoint: 1, parentToolCallId: "p" } }), "p");
});

test("a subagent's call that reuses an id seen elsewhere (its parent's, even) is a call of its own", () => {
  const t = new Transcript();
  t.apply(started("call_0", "Find ALPHA"));
  t.apply(started("call_1", "An earlier read"));
  t.apply(started("call_0", "Read file", "call_0")); // the child's model numbers its calls afresh
  t.apply({ sessionUpdate: "tool_call_update", toolCallId: "call_0", title: "Read alpha.txt", _meta: under("call_0") });
  t.apply(started("call_1", "Search", "call_0"));
  t.apply(updated("call_1", "completed", under("call_0")));
  t.apply(digest("call_0", "Subagent · 2 tool calls")); // no _meta: the parent's own
  t.apply(updated("call_0", "completed", under("call_0")));
  assert.deepEqual(shape(t.items), [
    [
      "call_0",
      "pending",
      [
        ["call_0", "completed", []],
        ["call_1", "completed", []],
      ],
    ],
    ["call_1", "pending", []],
  ]);
  const parent = tool(t.items[0]);
  assert.deepEqual([parent.title, parent.children.map((c) => c.title)], ["Find ALPHA", ["Read alpha.txt", "Search"]]);
  assert.deepEqual(parent.content, [{ type: "text", text: "Subagent · 2 tool calls" }]);
  t.apply(started("call_0", "Read file", "call_0")); // the same start again: no second card
  assert.equal(parent.children.length, 2);
  assert.deepEqual(t.failUnfinishedTools(), [parent, t.items[1]]);
});

test("replaying the same updates after a clear rebuilds the same nesting", () => {
  const t = new Transcript();
  for (const update of TWO_SUBAGENTS) t.apply(update);
  const live = shape(t.items);
  t.clear();
  assert.deepEqual(t.items, []);
  for (const update of TWO_SUBAGENTS) t.apply(update);
  assert.deepEqual(shape(t.items), live);
  // Nothing is left over from the first pass: a child's update still reaches the replayed parent.
  assert.deepEqual(t.apply(updated("b1", "failed")), [t.items[2]]);
  const fresh = new Transcript();
  for (const update of TWO_SUBAGENTS) fresh.apply(update);
  assert.deepEqual(shape(fresh.items), live);
});

test("children are shown while the parent runs, hidden once it completes, unless the user chose", () => {
  const t = new Transcript();
  t.apply(started("d1", "Find ALPHA"));
  t.apply(started("a1", "Read alpha.txt", "d1"));
  const parent = tool(t.items[0]);
  assert.equal(childrenExpanded(parent), true, "pending");
  t.apply(updated("d1", "in_progress"));
  assert.equal(childrenExpanded(parent), true, "running");
  t.apply(updated("d1", "completed"));
  assert.equal(childrenExpanded(parent), false, "completed");

  assert.equal(t.setExpanded(parent.id, true), parent);
  assert.equal(childrenExpanded(parent), true, "opened by the user");
  t.apply(digest("d1", "again"));
  assert.equal(childrenExpanded(parent), true, "a later update keeps the user's choice");
  t.setExpanded(parent.id, false);
  assert.equal(childrenExpanded(parent), false);
  assert.equal(t.setExpanded("no-such-item", true), null);

  // A nested subagent's list is toggled on its own; the top-level card is what shows it again.
  t.apply(started("a1x", "Nested", "d1"));
  t.apply(started("g1", "Grep", "a1x"));
  const nested = tool(parent.children[1]);
  assert.equal(t.setExpanded(nested.id, false), parent);
  assert.deepEqual([childrenExpanded(parent), childrenExpanded(nested)], [false, false]);
  t.setExpanded(nested.id, true);
  assert.deepEqual([childrenExpanded(parent), childrenExpanded(nested)], [false, true]);

  // A failed subagent keeps its calls in view: that is where to look for what went wrong.
  t.apply(started("d2", "Find BETA"));
  t.apply(started("b1", "Read beta.txt", "d2"));
  t.apply(updated("d2", "failed"));
  assert.equal(childrenExpanded(tool(t.items[1])), true);
});

test("when the agent exits, unfinished children fail and their parent's card is shown again once", () => {
  const t = new Transcript();
  t.apply(started("d1", "Find ALPHA"));
  t.apply(started("a1", "Read alpha.txt", "d1"));
  t.apply(started("a2", "Read more.txt", "d1"));
  t.apply(updated("a2", "completed"));
  t.apply(started("d2", "Find BETA"));
  t.apply(updated("d2", "completed"));
  assert.deepEqual(t.failUnfinishedTools(), [t.items[0]]);
  assert.deepEqual(shape(t.items), [
    [
      "d1",
      "failed",
      [
        ["a1", "failed", []],
        ["a2", "completed", []],
      ],
    ],
    ["d2", "completed", []],
  ]);
});

test("a parent card draws its children in a labelled list behind a button that says whether it is open", () => {
  const t = new Transcript();
  for (const update of TWO_SUBAGENTS.slice(0, 12)) t.apply(update); // a2 just started, d1 still running
  t.apply({ sessionUpdate: "tool_call_update", toolCallId: "d1", title: "Find <ALPHA>" });
  const d1 = tool(t.items[1]);
  const running = renderItem(d1, { displayPath: (path) => `rel/${path}` });
  const id = d1.id;
  assert.ok(running.startsWith('<div class="tool status-in_progress" data-tool-call-id="d1" data-status="in_progress"><div class="tool-head"><span class="badge">running</span> <span class="tool-title">Find &lt;ALPHA&gt;</span></div>'), running);
  assert.ok(running.includes('<pre class="tool-output">Subagent · 1 request\n… Read alpha.txt</pre><div class="subagent">'), "the digest, then the children");
  assert.ok(
    running.includes(
      `<button type="button" class="children-toggle" data-tool="${id}" aria-expanded="true" aria-controls="children-${id}">` +
        '<span class="chevron" aria-hidden="true"></span>Subagent · 2 tool calls · 1 pending · 1 running</button>',
    ),
    running,
  );
  assert.ok(running.includes(`<ul class="tool-children" id="children-${id}" aria-label="Subagent tool calls: Find &lt;ALPHA&gt;">`), running);
  const cards = running.match(/<li><div class="tool status-[a-z_]+"[^>]*><div class="tool-head"><span class="badge">[a-z]+<\/span> <span class="tool-title">[^<]*<\/span>/g) ?? [];
  assert.deepEqual(
    cards.map((c) => /status-([a-z_]+).*tool-title">([^<]*)/.exec(c)?.slice(1)),
    [
      ["in_progress", "Read alpha.txt"],
      ["pending", "Search alpha"],
    ],
  );
  assert.ok(running.endsWith("</div></li></ul></div></div>"), running);

  // Completed: the list is hidden, and the button says so; what the children did is still summed up.
  for (const update of TWO_SUBAGENTS.slice(12)) t.apply(update);
  const done = renderItem(d1);
  assert.ok(done.includes('aria-expanded="false"') && done.includes(`id="children-${id}" aria-label="Subagent tool calls: Find &lt;ALPHA&gt;" hidden>`), done);
  assert.ok(done.includes("Subagent · 2 tool calls · 1 failed</button>"), done);
  assert.ok(done.includes('<li><div class="tool status-failed" data-tool-call-id="a2" data-status="failed"><div class="tool-head"><span class="badge">failed</span> <span class="tool-title">Search alpha</span>'), done);
  t.setExpanded(d1.id, true);
  assert.ok(renderItem(d1).includes('aria-expanded="true"') && !renderItem(d1).includes(" hidden>"));

  // A child's own content (a diff here) is drawn inside its card, with the path as the chat shows it.
  t.apply({
    sessionUpdate: "tool_call_update",
    toolCallId: "b1",
    content: [{ type: "diff", path: "/w/beta.txt", oldText: "b\n", newText: "B\n" }],
  });
  t.setExpanded(tool(t.items[2]).id, true);
  const d2 = renderItem(tool(t.items[2]), { displayPath: (path) => path.replace("/w/", "") });
  assert.ok(d2.includes('<div class="diff-path">beta.txt</div><pre class="diff-lines"><span class="del">-b</span>\n<span class="add">+B</span></pre>'), d2);
});

test("a call without children has no toggle, and the summary counts what is unfinished or failed", () => {
  const t = new Transcript();
  const [plain] = t.apply(started("r1", "Read a.txt"));
  assert.ok(plain && !renderItem(plain).includes("subagent"));
  const child = (status: ToolCallStatus): ToolItem => ({ ...tool(plain), status, children: [] });
  assert.equal(childrenSummary([child("completed")]), "1 tool call");
  assert.equal(childrenSummary([child("completed"), child("in_progress"), child("failed"), child("failed")]), "4 tool calls · 1 running · 2 failed");
});
