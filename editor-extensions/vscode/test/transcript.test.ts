import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { renderDiff, renderItem } from "../src/render";
import { toUsageView } from "../src/usage";
import { Transcript, type Item } from "../src/transcript";

const text = (sessionUpdate: "agent_message_chunk" | "agent_thought_chunk", t: string, messageId?: string): SessionUpdate => ({
  sessionUpdate,
  content: { type: "text", text: t },
  ...(messageId ? { messageId } : {}),
});

test("chunks with the same messageId merge, different ids make new messages", () => {
  const t = new Transcript();
  t.apply(text("agent_message_chunk", "Hello ", "m1"));
  t.apply(text("agent_thought_chunk", "hmm", "t1"));
  t.apply(text("agent_message_chunk", "world", "m1"));
  t.apply(text("agent_message_chunk", "Second", "m2"));
  assert.deepEqual(
    t.items.map((i) => ("text" in i ? [i.kind, i.text] : [i.kind])),
    [
      ["agent", "Hello world"],
      ["thought", "hmm"],
      ["agent", "Second"],
    ],
  );
});

test("chunks without ids merge into the previous message of the same kind only", () => {
  const t = new Transcript();
  t.apply(text("agent_message_chunk", "a"));
  t.apply(text("agent_message_chunk", "b"));
  t.apply(text("agent_thought_chunk", "c"));
  t.apply(text("agent_message_chunk", "d"));
  assert.deepEqual(
    t.items.map((i) => ("text" in i ? i.text : "")),
    ["ab", "c", "d"],
  );
});

test("tool calls go pending -> in_progress -> completed / failed in place", () => {
  const t = new Transcript();
  const [created] = t.apply({ sessionUpdate: "tool_call", toolCallId: "c1", title: "Edit a.py", kind: "edit", status: "pending" });
  t.apply({
    sessionUpdate: "tool_call_update",
    toolCallId: "c1",
    status: "in_progress",
    content: [{ type: "diff", path: "/w/a.py", oldText: "x = 1\n", newText: "x = 2\n" }],
  });
  assert.equal(t.items.length, 1);
  const tool = t.items[0];
  assert.ok(tool?.kind === "tool");
  assert.equal(tool.id, created?.id);
  assert.equal(tool.status, "in_progress");
  assert.equal(tool.title, "Edit a.py");
  const running = renderItem(tool);
  assert.ok(running.includes("status-in_progress") && running.includes("running"), running);
  assert.ok(running.includes('<span class="del">-x = 1</span>') && running.includes('<span class="add">+x = 2</span>'), running);
  const shortened = renderItem(tool, { displayPath: (path) => path.replace(/^.*\//, "<workspace>/") });
  assert.ok(shortened.includes('<div class="diff-path">&lt;workspace&gt;/a.py</div>'), shortened);

  t.apply({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed" });
  assert.equal(tool.status, "completed");
  assert.equal(tool.content.length, 1, "an update without content keeps the content");
  t.apply({ sessionUpdate: "tool_call", toolCallId: "c2", title: "Run <rm>", status: "in_progress" });
  t.apply({ sessionUpdate: "tool_call_update", toolCallId: "c2", status: "failed" });
  const failed = t.items[1];
  assert.ok(failed?.kind === "tool" && failed.status === "failed");
  assert.ok(renderItem(failed).includes("Run &lt;rm&gt;"));
  t.apply({
    sessionUpdate: "tool_call_update",
    toolCallId: "c2",
    content: [{ type: "content", content: { type: "text", text: 'if __name__ == "__main__":\n    main()' } }],
  });
  const output = renderItem(t.items[1] as Item);
  assert.ok(output.includes('<pre class="tool-output">if __name__ == &quot;__main__&quot;:\n    main()</pre>'), output);
});

test("a plan is replaced within a turn, and a new turn starts a new plan", () => {
  const t = new Transcript();
  t.addUserPrompt("do it");
  t.apply({ sessionUpdate: "plan", entries: [{ content: "step 1", priority: "high", status: "in_progress" }] });
  t.apply({
    sessionUpdate: "plan",
    entries: [
      { content: "step 1", priority: "high", status: "completed" },
      { content: "step 2", priority: "medium", status: "in_progress" },
    ],
  });
  const plans = t.items.filter((i) => i.kind === "plan");
  assert.equal(plans.length, 1);
  assert.deepEqual(
    plans[0]?.kind === "plan" ? plans[0].entries.map((e) => e.status) : [],
    ["completed", "in_progress"],
  );
  t.addUserPrompt("again");
  t.apply({ sessionUpdate: "plan", entries: [] });
  assert.equal(t.items.filter((i) => i.kind === "plan").length, 2);
});

test("usage updates are kept and rendered; mode updates tracked", () => {
  const t = new Transcript();
  assert.equal(toUsageView(t.usage), null);
  assert.deepEqual(t.apply({ sessionUpdate: "usage_update", used: 5000, size: 200000, cost: { amount: 0.0123, currency: "USD" } }), []);
  assert.deepEqual(t.usage, { used: 5000, size: 200000, cost: { amount: 0.0123, currency: "USD" } });
  assert.equal(toUsageView(t.usage)?.text, "5,000 / 200,000 tokens (3%) · $0.0123");
  t.apply({ sessionUpdate: "current_mode_update", currentModeId: "plan" });
  assert.equal(t.currentModeId, "plan");
});

test("thoughts render in a collapsible details element, escaped", () => {
  const t = new Transcript();
  const [item] = t.apply(text("agent_thought_chunk", "<b>why</b>", "t"));
  assert.ok(item);
  assert.equal(renderItem(item), '<details class="thought"><summary>Thinking</summary><p>&lt;b&gt;why&lt;/b&gt;</p></details>');
});

test("a diff aligns the lines it did not change: a rename shows only the lines it touched", () => {
  const before = 'def greet(name):\n    return name\n\nif x:\n    greet("w")\n';
  const after = 'def welcome(name):\n    return name\n\nif x:\n    welcome("w")\n';
  assert.equal(
    renderDiff(before, after),
    [
      '<span class="del">-def greet(name):</span>',
      '<span class="add">+def welcome(name):</span>',
      "     return name",
      " ",
      " if x:",
      '<span class="del">-    greet(&quot;w&quot;)</span>',
      '<span class="add">+    welcome(&quot;w&quot;)</span>',
    ].join("\n"),
  );
  assert.equal(renderDiff(null, "new\n"), '<span class="add">+new</span>\n<span class="add">+</span>');
});
