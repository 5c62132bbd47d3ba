// Rewind's protocol side (src/rewind.ts), a prompt's actions (src/promptActions.ts) and the
// transcript's cuts: pure, no agent.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { InitializeResponse } from "@agentclientprotocol/sdk";
import { renderPromptActions } from "../src/promptActions";
import { renderItem } from "../src/render";
import {
  answeredMessageId,
  editPromptParams,
  failedInTurn,
  newMessageId,
  NO_REWIND,
  readPromptAnswer,
  readRewound,
  rewindParams,
  rewindSupport,
} from "../src/rewind";
import { Transcript, type MessageItem } from "../src/transcript";

const init = (agentCapabilities: unknown): InitializeResponse => ({ protocolVersion: 1, agentCapabilities } as InitializeResponse);

test("rewind is offered only as initialize advertises it", () => {
  assert.deepEqual(rewindSupport(init({ rewindSession: { supported: true, supportsEditPrompt: true } })), { rewind: true, editPrompt: true });
  assert.deepEqual(rewindSupport(init({ rewindSession: { supported: true } })), { rewind: true, editPrompt: false });
  for (const absent of [undefined, {}, { rewindSession: true }, { rewindSession: { supported: "yes" } }, { rewindSession: { supportsEditPrompt: true } }]) {
    assert.deepEqual(rewindSupport(init(absent)), NO_REWIND, JSON.stringify(absent));
  }
  assert.deepEqual(rewindSupport(null), NO_REWIND);
});

test("the requests carry the prompt's id and what to restore in Heron's _meta", () => {
  assert.deepEqual(rewindParams("s1", "m2", "both"), { sessionId: "s1", toMessageId: "m2", _meta: { heron: { restore: "both" } } });
  assert.deepEqual(editPromptParams("s1", "m2", [{ type: "text", text: "again" }], "both"), {
    sessionId: "s1",
    messageId: "m2",
    newContent: [{ type: "text", text: "again" }],
    _meta: { heron: { restore: "both" } },
  });
  const [a, b] = [newMessageId(), newMessageId()];
  assert.match(a, /^[0-9a-f-]{36}$/);
  assert.notEqual(a, b);
});

test("the answers are read strictly; what is missing is null, what is malformed throws", () => {
  assert.deepEqual(readRewound({ remainingMessageCount: 3, lastMessageId: "r1", _meta: { heron: { files: "Restored 1: a.py." } } }), {
    remainingMessageCount: 3,
    lastMessageId: "r1",
    files: "Restored 1: a.py.",
  });
  assert.deepEqual(readRewound({ remainingMessageCount: 0, lastMessageId: null }), { remainingMessageCount: 0, lastMessageId: null, files: null });
  assert.throws(() => readRewound({ lastMessageId: "x" }), /remainingMessageCount/);
  assert.throws(() => readRewound("done"), /session\/rewind/);
  assert.deepEqual(readPromptAnswer({ stopReason: "end_turn", userMessageId: "u9" }), { stopReason: "end_turn", userMessageId: "u9" });
  assert.deepEqual(readPromptAnswer({ stopReason: "cancelled" }), { stopReason: "cancelled", userMessageId: null });
  assert.throws(() => readPromptAnswer({ stopReason: "whatever" }), /session\/edit_prompt has no stopReason/);
  assert.equal(answeredMessageId({ stopReason: "end_turn", userMessageId: 7 }), null);
  assert.equal(answeredMessageId(undefined), null);
});

test("a failure in the new prompt's turn is told from a rewind that did not happen", () => {
  assert.equal(failedInTurn({ code: -32603, message: "the model exploded", data: { reason: "error" } }), true);
  assert.equal(failedInTurn({ code: -32602, message: "The restore was declined: nothing changed." }), false);
  assert.equal(failedInTurn(new Error("no")), false);
  assert.equal(failedInTurn(null), false);
});

test("a prompt's actions: only with an id and when the agent can rewind; its text rides along, escaped", () => {
  const prompt: MessageItem = { kind: "user", id: "i1", messageId: "m\"1", text: "Fix <b>it</b> & go" };
  const both = renderPromptActions(prompt, { rewind: true, editPrompt: true });
  assert.ok(both.startsWith('<div class="prompt-actions" data-message="m&quot;1" data-text="Fix &lt;b&gt;it&lt;/b&gt; &amp; go">'), both);
  assert.ok(both.includes('data-action="rewind"') && both.includes(">Rewind to here</button>"), both);
  assert.ok(both.includes('data-action="edit"') && both.includes(">Edit and resend</button>"), both);
  assert.ok(!renderPromptActions(prompt, { rewind: true, editPrompt: false }).includes('data-action="edit"'));
  assert.equal(renderPromptActions(prompt, NO_REWIND), "");
  assert.equal(renderPromptActions({ ...prompt, messageId: null }, { rewind: true, editPrompt: true }), "");
  assert.equal(renderPromptActions({ ...prompt, kind: "agent" }, { rewind: true, editPrompt: true }), "");
  assert.ok(renderItem(prompt, { rewind: { rewind: true, editPrompt: true } }).includes("prompt-actions"));
  assert.ok(!renderItem(prompt).includes("prompt-actions"), "none unless the agent can rewind");
});

function conversation(): Transcript {
  const t = new Transcript();
  t.addUserPrompt("first", "m1");
  t.apply({ sessionUpdate: "agent_message_chunk", messageId: "r1", content: { type: "text", text: "one" } });
  t.addUserPrompt("second", "m2");
  t.apply({ sessionUpdate: "plan", entries: [{ content: "step", priority: "high", status: "pending" }] });
  t.apply({ sessionUpdate: "tool_call", toolCallId: "c1", title: "Edit a.py", kind: "edit", status: "completed" });
  t.apply({ sessionUpdate: "agent_message_chunk", messageId: "r2", content: { type: "text", text: "two" } });
  return t;
}

const shape = (t: Transcript): string[] => t.items.map((i) => ("text" in i ? `${i.kind}:${i.text}` : i.kind === "tool" ? `tool:${i.title}:${i.status}` : i.kind));

test("a cut takes a prompt and what follows it out; put back, it is where it was and its calls still update", () => {
  const t = conversation();
  assert.equal(t.promptIndex("m2"), 2);
  assert.equal(t.promptIndex("r1"), -1, "only prompts are found");
  assert.equal(t.promptIndex("nope"), -1);
  const gone = t.cutFrom(2);
  assert.deepEqual(shape(t), ["user:first", "agent:one"]);
  assert.equal(gone.length, 4);
  const edited = t.addUserPrompt("second, edited");
  t.apply({ sessionUpdate: "tool_call", toolCallId: "restore-1", title: "Restore the workspace to checkpoint 2", kind: "edit", status: "failed" });
  t.remove(edited);
  t.putBack(2, gone);
  assert.deepEqual(shape(t), ["user:first", "agent:one", "user:second", "plan", "tool:Edit a.py:completed", "agent:two", "tool:Restore the workspace to checkpoint 2:failed"]);
  t.apply({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "failed" });
  assert.equal(shape(t)[4], "tool:Edit a.py:failed");
});

test("items cut out for good are forgotten: a new call with a reused id is a new card, a new plan a new item", () => {
  const t = conversation();
  t.apply({ sessionUpdate: "tool_call", toolCallId: "restore-1", title: "Restore the workspace to checkpoint 2", kind: "edit", status: "completed" });
  const gone = t.items.slice(2, 6);
  t.cutOut(gone);
  assert.deepEqual(shape(t), ["user:first", "agent:one", "tool:Restore the workspace to checkpoint 2:completed"]);
  const [card] = t.apply({ sessionUpdate: "tool_call", toolCallId: "c1", title: "Edit b.py", kind: "edit", status: "pending" });
  assert.ok(card && t.items.includes(card), "drawn, not an update of the removed card");
  const [plan] = t.apply({ sessionUpdate: "plan", entries: [{ content: "again", priority: "high", status: "pending" }] });
  assert.ok(plan && t.items.includes(plan));
  // A reply chunk with the id of a removed reply starts a new message.
  t.apply({ sessionUpdate: "agent_message_chunk", messageId: "r2", content: { type: "text", text: "new two" } });
  assert.deepEqual(shape(t).slice(-3), ["tool:Edit b.py:pending", "plan", "agent:new two"]);
});
