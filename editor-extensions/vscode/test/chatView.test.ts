// The chat view's header, usage line and Stop button as the extension drives them: activate() on
// the vscode stub, a stub webview view, the scripted fake agent as `heron.path`.
import "./installVscodeStub";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeEach, test } from "node:test";
import { activate, deactivate } from "../src/extension";
import type { HeaderView } from "../src/header";
import { fakeHeronExecutable, until } from "./fakeAgent";
import { openChatView, type StubChatView } from "./stubChatView";
import { stub, Uri } from "./vscodeStub";

/** Activates with the fake agent in a fresh workspace folder and opens the chat view. */
function start(): { view: StubChatView; status: { text: string }; ws: string } {
  const ws = mkdtempSync(join(tmpdir(), "heron-chatview-"));
  stub.config.set("heron.path", fakeHeronExecutable());
  stub.config.set("heron.traceTraffic", true);
  stub.workspaceFolders = [{ uri: Uri.file(ws) }];
  activate({ subscriptions: [], extensionUri: Uri.file(resolve(".")) } as never);
  const status = stub.statusItems[0];
  assert.ok(status);
  return { view: openChatView(), status, ws };
}

const sent = (method: string): string[] => stub.outputLines.filter((l) => l.startsWith("-> ") && l.includes(`"method":"${method}"`));
const picker = (header: HeaderView | undefined, id: string) => header?.pickers.find((p) => p.id === id);

beforeEach(() => stub.reset());

test("the header: disabled before a session; the session, its title and its options after a prompt; shown again when the view reopens", { timeout: 30_000 }, async () => {
  const { view, status } = start();
  try {
    assert.deepEqual(view.header(), {
      type: "header",
      sessionId: "",
      sessions: [{ value: "", label: "New session", description: "Start a new session" }],
      pickers: [],
      enabled: false,
    });
    await until("the agent asked for the session list when the view opened", () => sent("session/list").length === 1);

    view.receive({ type: "prompt", text: "hello" });
    await until("the titled session in the list", () => view.header()?.sessions.some((s) => s.label === "About hello") ?? false);
    await until("ready", () => status.text.includes("ready"));
    const header = view.header();
    assert.ok(header);
    assert.equal(header.sessionId, "s1");
    assert.equal(header.enabled, true);
    assert.deepEqual(header.pickers.map((p) => [p.id, p.value]), [
      ["mode-select", "ask"],
      ["model-select", "fake:small"],
    ]);

    view.receive({ type: "prompt", text: "usage" });
    await until("the usage line", () => view.posted.some((m) => m.type === "items" && m.usage !== null));

    // Closed and opened again: everything is sent again, the header and the usage line too.
    const again = openChatView();
    assert.deepEqual(again.posted.map((m) => m.type), ["reset", "items", "busy", "header"]);
    assert.deepEqual(again.header(), header);
    const items = again.posted[1];
    assert.deepEqual(items?.type === "items" ? items.usage : null, {
      text: "12,345 / 200,000 tokens (6%) · $0.0123",
      label: "Context: 12,345 of 200,000 tokens used (6%). Cost: $0.0123",
    });
  } finally {
    await deactivate();
  }
});

test("webview messages are checked: malformed ones do nothing; a picker's choice goes to the agent and back", { timeout: 30_000 }, async () => {
  const { view, status } = start();
  try {
    view.receive({ type: "prompt", text: "hello" });
    await until("ready", () => status.text.includes("ready") && view.header()?.enabled === true);
    // The session list asked for after the turn has been answered and shown: nothing more is coming.
    const answered = (): number => stub.outputLines.filter((l) => l.startsWith("<- ") && l.includes('"result":{"sessions":')).length;
    await until("the session list answered", () => answered() === sent("session/list").length && answered() >= 3);
    await new Promise((r) => setTimeout(r, 20));
    const headers = view.posted.filter((m) => m.type === "header").length;
    for (const bad of [
      { type: "setOption", configId: "model" },
      { type: "setOption", configId: 1, value: "fake:large" },
      { type: "setOption", configId: "model", value: ["fake:large"] },
      { type: "selectSession" },
      { type: "selectSession", sessionId: 1 },
      { type: "cancel" },
    ]) {
      view.receive(bad);
    }
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(sent("session/set_config_option").length, 0);
    assert.equal(sent("session/load").length + sent("session/cancel").length, 0);
    assert.equal(sent("session/new").length, 1);
    assert.equal(view.posted.filter((m) => m.type === "header").length, headers, "nothing happened");

    view.receive({ type: "setOption", configId: "model", value: "fake:large" });
    await until("the new model in the picker", () => picker(view.header(), "model-select")?.value === "fake:large");
    assert.equal(sent("session/set_config_option").length, 1);

    // Refused by the agent: the picker goes back, and the user is told.
    view.receive({ type: "setOption", configId: "model", value: "fake:broken" });
    await until("the error", () => stub.messages.some((m) => m.message.includes("cannot use fake:broken")));
    assert.equal(picker(view.header(), "model-select")?.value, "fake:large");

    view.receive({ type: "setOption", configId: "mode", value: "plan" });
    await until("the mode in the status bar", () => status.text.endsWith("(plan)"));
    assert.equal(picker(view.header(), "mode-select")?.value, "plan");
  } finally {
    await deactivate();
  }
});

test("the session picker: a listed session is loaded, New session starts one, an unknown id is ignored", { timeout: 30_000 }, async () => {
  const { view, status } = start();
  try {
    view.receive({ type: "prompt", text: "first" });
    await until("ready", () => status.text.includes("ready") && view.header()?.sessionId === "s1");
    view.receive({ type: "selectSession", sessionId: "" });
    await until("a new session", () => view.header()?.sessionId === "s2");
    await until("both listed", () => view.header()?.sessions.length === 3);
    assert.deepEqual(view.header()?.sessions.map((s) => [s.value, s.label]), [
      ["", "New session"],
      ["s2", "s2"],
      ["s1", "About first"],
    ]);

    view.receive({ type: "selectSession", sessionId: "s1" });
    await until("s1 loaded", () => sent("session/load").length === 1 && view.header()?.sessionId === "s1" && status.text.includes("ready"));
    assert.ok(sent("session/load")[0]?.includes('"sessionId":"s1"'));
    assert.ok(view.html().includes("ok: first"), "the conversation replayed");

    const headers = view.posted.filter((m) => m.type === "header").length;
    view.receive({ type: "selectSession", sessionId: "not-listed" });
    await until("the header shown again", () => view.posted.filter((m) => m.type === "header").length > headers);
    assert.equal(view.header()?.sessionId, "s1", "the picker goes back to the session shown");
    assert.equal(sent("session/load").length, 1);
  } finally {
    await deactivate();
  }
});

test("Stop cancels the running turn; the chat says Stopped. and the view is ready again", { timeout: 30_000 }, async () => {
  const { view, status } = start();
  try {
    view.receive({ type: "stop" });
    view.receive({ type: "prompt", text: "hang" });
    await until("the turn to run", () => status.text.includes("working") && sent("session/prompt").length === 1);
    assert.equal(sent("session/cancel").length, 0, "no session yet: nothing to cancel");
    view.receive({ type: "stop" });
    await until("ready", () => status.text.includes("ready"));
    assert.equal(sent("session/cancel").length, 1);
    assert.match(view.html(), /<div class="notice notice-info"><strong>Stopped\.<\/strong>/);
    assert.deepEqual(view.posted.filter((m) => m.type === "busy").at(-1), { type: "busy", busy: false }, "the Stop button goes away");
  } finally {
    await deactivate();
  }
});

test("a prompt's actions through the view: Rewind to here removes it and what followed and fills the prompt box; Edit and resend replaces it", { timeout: 30_000 }, async () => {
  const { view, status } = start();
  // The restore question is VS Code's modal with Heron's option names.
  stub.ui.answerMessage = (_message, items) => (items.includes("Restore these files") ? "Restore these files" : undefined);
  try {
    view.receive({ type: "prompt", text: "hello" });
    await until("ready", () => status.text.includes("ready") && view.html().includes("ok: hello"));
    view.receive({ type: "prompt", text: "world" });
    await until("the second answer", () => status.text.includes("ready") && view.html().includes("ok: world"));
    const ids = sent("session/prompt").map((l) => (JSON.parse(l.slice(3)) as { params: { messageId: string } }).params.messageId);
    assert.equal(ids.length, 2);
    const prompts = view.renderedItems().filter((html) => html.startsWith('<div class="msg user">'));
    assert.ok(prompts.every((html) => html.includes('class="prompt-actions"')), prompts.join("\n"));
    assert.ok(prompts[1]?.includes(`data-message="${ids[1] ?? ""}"`));

    for (const bad of [{ type: "rewind" }, { type: "rewind", messageId: 3 }, { type: "editPrompt", messageId: ids[0] }, { type: "editPrompt", messageId: ids[0], text: "  " }]) {
      view.receive(bad);
    }
    view.receive({ type: "rewind", messageId: ids[1] });
    await until("the prompt back in the prompt box", () => view.posted.some((m) => m.type === "fillPrompt" && m.text === "world"));
    assert.equal(sent("session/rewind").length, 1);
    assert.equal(sent("session/edit_prompt").length, 0, "the malformed messages did nothing");
    const removed = view.posted.filter((m) => m.type === "remove");
    assert.equal(removed.length, 1);
    assert.equal((removed[0]?.ids as string[]).length, 2, "the prompt and its answer");

    view.receive({ type: "editPrompt", messageId: ids[0], text: "hi" });
    await until("the new answer", () => status.text.includes("ready") && view.html().includes("ok: hi"));
    const edit = sent("session/edit_prompt")[0] ?? "";
    assert.ok(edit.includes(`"messageId":"${ids[0] ?? ""}"`) && edit.includes('"newContent":[{"type":"text","text":"hi"}]'), edit);
    assert.equal(view.posted.filter((m) => m.type === "remove").length, 2);
  } finally {
    await deactivate();
  }
});
