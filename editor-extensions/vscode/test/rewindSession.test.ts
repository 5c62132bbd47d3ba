// "Rewind to here" and "Edit and resend" through the session controller, against the scripted
// fake agent (which rewinds as Heron does: a restore preview, a question, the history cut).
import "./installVscodeStub";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import { SessionController, TurnInProgressError } from "../src/session";
import type { Item } from "../src/transcript";
import { fakeAgentCommand, NO_FS, noTerminals, until } from "./fakeAgent";

interface Harness {
  session: SessionController;
  asked: RequestPermissionRequest[];
  removed: string[][];
  resets: { count: number };
  traffic: string[];
  cwd: string;
}

/** `restore`: whether the user answers the restore question with "Restore these files". */
function harness(restore: boolean, env: Record<string, string> = {}): Harness {
  const cwd = mkdtempSync(join(tmpdir(), "heron-rewind-"));
  const h: Omit<Harness, "session"> = { asked: [], removed: [], resets: { count: 0 }, traffic: [], cwd };
  const session = new SessionController({
    agentCommand: () => fakeAgentCommand(cwd, env),
    initialMode: () => undefined,
    fs: NO_FS,
    terminals: noTerminals(),
    permissions: {
      request: (params): Promise<RequestPermissionResponse> => {
        h.asked.push(params);
        const optionId = params.options.find((o) => o.kind === (restore ? "allow_once" : "reject_once"))?.optionId ?? "";
        return Promise.resolve({ outcome: { outcome: "selected", optionId } });
      },
    },
    log: { info: () => undefined, traffic: (d, l) => h.traffic.push(`${d} ${l}`) },
    listener: {
      onState: () => undefined,
      onItems: () => undefined,
      onReset: () => (h.resets.count += 1),
      onRemoved: (items) => h.removed.push(items.map((i) => i.id)),
    },
  });
  return { ...h, session };
}

const text = (t: string) => [{ type: "text" as const, text: t }];

/** The chat in short: a prompt, a reply, a card with its status, a notice's title. */
function shape(items: readonly Item[]): string[] {
  return items.map((i) => {
    switch (i.kind) {
      case "tool":
        return `tool:${i.title}:${i.status}`;
      case "notice":
        return `notice:${i.title}`;
      case "plan":
        return "plan";
      default:
        return `${i.kind}:${i.text}`;
    }
  });
}

function sent(h: Harness, method: string): Record<string, unknown>[] {
  return h.traffic
    .filter((l) => l.startsWith("-> ") && l.includes(`"method":"${method}"`))
    .map((l) => (JSON.parse(l.slice(3)) as { params: Record<string, unknown> }).params);
}

/** Two prompts answered; returns their ids as the chat knows them. */
async function twoPrompts(h: Harness): Promise<[string, string]> {
  await h.session.prompt(text("hello"), "hello", h.cwd);
  await h.session.prompt(text("world"), "world", h.cwd);
  const ids = h.session.transcript.items.flatMap((i) => (i.kind === "user" && i.messageId !== null ? [i.messageId] : []));
  assert.equal(ids.length, 2, JSON.stringify(h.session.transcript.items));
  return [ids[0] ?? "", ids[1] ?? ""];
}

test("each prompt is sent with a fresh messageId, which its bubble keeps", async () => {
  const h = harness(true);
  try {
    const [first, second] = await twoPrompts(h);
    const prompts = sent(h, "session/prompt");
    assert.deepEqual(prompts.map((p) => p.messageId), [first, second]);
    assert.notEqual(first, second);
    assert.match(first, /^[0-9a-f-]{36}$/);
  } finally {
    await h.session.stop();
  }
});

test("without rewind in initialize no messageId is sent, and the id the agent answers with is kept", async () => {
  const h = harness(true, { FAKE_NO_REWIND: "1" });
  try {
    await h.session.prompt(text("hello"), "hello", h.cwd);
    assert.equal(sent(h, "session/prompt")[0]?.messageId, undefined);
    assert.equal(h.session.transcript.items[0]?.kind === "user" ? h.session.transcript.items[0].messageId : "", "m1");
    assert.deepEqual(h.session.rewindSupport, { rewind: false, editPrompt: false });
    assert.equal(await h.session.rewind("m1"), null);
    assert.deepEqual(shape(h.session.transcript.items).at(-1), "notice:Rewind failed.");
    assert.equal(sent(h, "session/rewind").length, 0);
  } finally {
    await h.session.stop();
  }
});

test("Rewind to here: asked first, then the prompt and what followed it leave the chat, and its text comes back", async () => {
  const h = harness(true);
  try {
    const [, second] = await twoPrompts(h);
    const removedIds = h.session.transcript.items.slice(2).map((i) => i.id);
    assert.equal(await h.session.rewind(second), "world");
    assert.deepEqual(sent(h, "session/rewind"), [{ sessionId: h.session.sessionId, toMessageId: second, _meta: { heron: { restore: "both" } } }]);
    assert.equal(h.asked[0]?.toolCall.title, "Restore the workspace to checkpoint 1");
    assert.deepEqual(h.removed, [removedIds]);
    assert.deepEqual(shape(h.session.transcript.items), [
      "user:hello",
      "agent:ok: hello",
      "tool:Restore the workspace to checkpoint 1:completed",
      "notice:Rewound.",
    ]);
    const notice = h.session.transcript.items.at(-1);
    assert.ok(notice?.kind === "notice" && notice.description.includes("“world”") && notice.description.includes("Restored 1: notes.md."), JSON.stringify(notice));
    assert.equal(h.session.busy, false);
    assert.equal(h.session.currentState, "ready");
    // The session goes on from there; loaded again, it has the first prompt only.
    assert.equal(await h.session.prompt(text("again"), "again", h.cwd), "end_turn");
    const sessionId = h.session.sessionId ?? "";
    await h.session.loadSession(sessionId, h.cwd);
    assert.deepEqual(shape(h.session.transcript.items), ["user:hello", "agent:ok: hello", "user:again", "agent:ok: again"]);
    // Replayed prompts carry their ids: their actions can name them.
    const replayed = h.session.transcript.items[2];
    assert.ok(replayed?.kind === "user" && replayed.messageId === sent(h, "session/prompt")[2]?.messageId);
  } finally {
    await h.session.stop();
  }
});

test("Rewind to here declined: nothing leaves the chat, which says why in the agent's words", async () => {
  const h = harness(false);
  try {
    const [first] = await twoPrompts(h);
    assert.equal(await h.session.rewind(first), null);
    assert.deepEqual(h.removed, []);
    assert.deepEqual(shape(h.session.transcript.items), [
      "user:hello",
      "agent:ok: hello",
      "user:world",
      "agent:ok: world",
      "tool:Restore the workspace to checkpoint 1:failed",
      "notice:Rewind failed.",
    ]);
    const notice = h.session.transcript.items.at(-1);
    assert.ok(notice?.kind === "notice" && notice.severity === "error" && notice.description === "The restore was declined: nothing changed.");
    assert.equal(h.session.currentState, "ready");
  } finally {
    await h.session.stop();
  }
});

test("Edit and resend: the old prompt and what followed it are replaced by the new prompt and its answer", async () => {
  const h = harness(true);
  try {
    const [first] = await twoPrompts(h);
    const oldIds = h.session.transcript.items.map((i) => i.id);
    assert.equal(await h.session.editPrompt(first, text("hi again"), "hi again"), "end_turn");
    assert.deepEqual(sent(h, "session/edit_prompt"), [
      { sessionId: h.session.sessionId, messageId: first, newContent: [{ type: "text", text: "hi again" }], _meta: { heron: { restore: "both" } } },
    ]);
    assert.deepEqual(h.removed, [oldIds]);
    assert.deepEqual(shape(h.session.transcript.items), [
      "user:hi again",
      "tool:Restore the workspace to checkpoint 1:completed",
      "agent:ok: hi again",
    ]);
    const edited = h.session.transcript.items[0];
    assert.ok(edited?.kind === "user" && edited.messageId !== null && edited.messageId !== first, "named by the agent's answer");
    assert.equal(h.session.busy, false);
    const sessionId = h.session.sessionId ?? "";
    await h.session.loadSession(sessionId, h.cwd);
    assert.deepEqual(shape(h.session.transcript.items), ["user:hi again", "agent:ok: hi again"]);
  } finally {
    await h.session.stop();
  }
});

test("Edit and resend declined: the old prompt and its answers come back where they were", async () => {
  const h = harness(false);
  try {
    const [, second] = await twoPrompts(h);
    const resets = h.resets.count;
    assert.equal(await h.session.editPrompt(second, text("world, edited"), "world, edited"), null);
    assert.equal(h.resets.count, resets + 1, "drawn again");
    assert.deepEqual(shape(h.session.transcript.items), [
      "user:hello",
      "agent:ok: hello",
      "user:world",
      "agent:ok: world",
      "tool:Restore the workspace to checkpoint 1:failed",
      "notice:Edit and resend failed.",
    ]);
    // Still the same prompt: it can be rewound or edited again.
    assert.equal(h.session.transcript.promptIndex(second), 2);
    assert.equal(h.session.currentState, "ready");
  } finally {
    await h.session.stop();
  }
});

test("Edit and resend whose new turn fails: the rewind stands, the chat says why", async () => {
  const h = harness(true);
  try {
    const [, second] = await twoPrompts(h);
    assert.equal(await h.session.editPrompt(second, text("fail"), "fail"), null);
    assert.deepEqual(shape(h.session.transcript.items), [
      "user:hello",
      "agent:ok: hello",
      "user:fail",
      "tool:Restore the workspace to checkpoint 1:completed",
      "notice:Edit and resend failed.",
    ]);
    const notice = h.session.transcript.items.at(-1);
    assert.ok(notice?.kind === "notice" && notice.description === "the model exploded");
  } finally {
    await h.session.stop();
  }
});

test("a rewind or an edit while a turn runs is refused; a prompt the chat no longer has is said so", async () => {
  const h = harness(true);
  try {
    const [first] = await twoPrompts(h);
    const running = h.session.prompt(text("hang"), "hang", h.cwd);
    await until("the turn to start", () => sent(h, "session/prompt").length === 3);
    await assert.rejects(h.session.rewind(first), TurnInProgressError);
    await assert.rejects(h.session.editPrompt(first, text("x"), "x"), TurnInProgressError);
    await h.session.cancel();
    assert.equal(await running, "cancelled");
    assert.equal(await h.session.rewind("not-here"), null);
    const notice = h.session.transcript.items.at(-1);
    assert.ok(notice?.kind === "notice" && notice.description === "That prompt is no longer in this conversation.");
    assert.equal(sent(h, "session/rewind").length, 0);
  } finally {
    await h.session.stop();
  }
});
