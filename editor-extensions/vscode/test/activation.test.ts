// The extension as VS Code sees it: activate() on the stub, then the chat view driving a real
// `heron acp` from a typed prompt to the rendered reply.
import "./installVscodeStub";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeEach, test } from "node:test";
import { activate, deactivate } from "../src/extension";
import { PROPOSAL_SCHEME } from "../src/permissionPrompt";
import { Position, Range, stub, TextDocument, Uri } from "./vscodeStub";

const HERON_BIN = process.env.HERON_BIN ?? resolve("../../.venv/bin/heron");
const skip = existsSync(HERON_BIN) ? false : `heron not found at ${HERON_BIN} (set HERON_BIN, or run \`make setup\`)`;

interface Manifest {
  contributes: { commands: { command: string }[]; views: Record<string, { id: string }[]> };
}

class StubWebviewView {
  readonly posted: { type: string; items?: { id: string; html: string }[]; busy?: boolean }[] = [];
  receive: ((message: unknown) => void) | undefined;
  readonly webview = {
    options: {},
    html: "",
    cspSource: "vscode-webview:",
    asWebviewUri: (uri: Uri) => uri,
    postMessage: (message: StubWebviewView["posted"][number]) => {
      this.posted.push(message);
      return Promise.resolve(true);
    },
    onDidReceiveMessage: (handler: (message: unknown) => void) => {
      this.receive = handler;
      return { dispose: () => undefined };
    },
  };
  show(): void {
    return undefined;
  }
  onDidDispose(): { dispose(): void } {
    return { dispose: () => undefined };
  }
  /** The last HTML posted for each item id, in first-posted order. */
  renderedItems(): string[] {
    const byId = new Map<string, string>();
    for (const message of this.posted) {
      if (message.type === "reset") byId.clear();
      for (const item of message.items ?? []) byId.set(item.id, item.html);
    }
    return [...byId.values()];
  }
}

function context(): { subscriptions: unknown[]; extensionUri: Uri } {
  return { subscriptions: [], extensionUri: Uri.file(resolve(".")) };
}

async function until(what: string, condition: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeEach(() => stub.reset());

test("activate registers every contributed command and view, and a stopped status item", async () => {
  const manifest = JSON.parse(readFileSync("package.json", "utf8")) as Manifest;
  const ctx = context();
  activate(ctx as never);
  const declared = manifest.contributes.commands.map((c) => c.command).sort();
  assert.deepEqual([...stub.commands.keys()].sort(), declared);
  const views = Object.values(manifest.contributes.views).flat().map((v) => v.id);
  assert.deepEqual([...stub.webviewProviders.keys()], views);
  assert.ok(stub.providers.has(PROPOSAL_SCHEME));
  assert.equal(stub.statusItems.length, 1);
  assert.equal(stub.statusItems[0]?.text, "$(circle-outline) Heron");
  assert.ok(ctx.subscriptions.length >= declared.length);
  await deactivate();
});

test("a prompt typed in the chat view streams back into it, with the edit reviewed and applied", { skip, timeout: 90_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), "heron-vscode-act-"));
  const ws = mkdtempSync(join(root, "ws-"));
  writeFileSync(join(ws, "notes.md"), "# Notes\n\ntodo: nothing\n");
  const script = join(root, "script.json");
  writeFileSync(
    script,
    JSON.stringify({
      rules: [
        {
          match: "what does this line say",
          replies: [[{ text: "That line says **ship it**." }]],
        },
        {
          match: "fill in the notes",
          replies: [
            [{ tool_call: { name: "read_file", arguments: { path: "notes.md" } } }],
            [{ tool_call: { name: "edit_file", arguments: { path: "notes.md", edits: [{ old_string: "nothing", new_string: "ship it" }] } } }],
            [{ text: "Updated <notes.md>: **ship it**." }],
          ],
        },
      ],
    }),
  );
  process.env.HERON_HOME = mkdtempSync(join(root, "home-"));
  stub.config.set("heron.path", HERON_BIN);
  stub.config.set("heron.model", `scripted:${script}`);
  stub.config.set("heron.mode", "ask");
  stub.config.set("heron.traceTraffic", true);
  stub.workspaceFolders = [{ uri: Uri.file(ws) }];
  stub.ui.answerMessage = (_message, items) => (items.includes("Apply") ? "Apply" : undefined);

  activate(context() as never);
  const provider = stub.webviewProviders.get("heron.chat") as { resolveWebviewView(view: StubWebviewView): void };
  const view = new StubWebviewView();
  provider.resolveWebviewView(view);
  assert.match(view.webview.html, /Content-Security-Policy/);
  assert.ok(view.receive);
  const status = stub.statusItems[0];
  assert.ok(status);
  try {
    view.receive({ type: "ready" });
    assert.equal(view.posted[0]?.type, "reset");
    view.receive({ type: "prompt", text: "Please fill in the notes" });
    await until("the reply", () => view.renderedItems().some((h) => h.includes("ship it</strong>")));
    await until("the ready state", () => status.text.includes("ready"));

    const html = view.renderedItems();
    assert.ok(html[0]?.includes("Please fill in the notes"), html[0]);
    assert.ok(html.includes('<div class="msg agent"><p>Updated &lt;notes.md&gt;: <strong>ship it</strong>.</p></div>'), html.join("\n"));
    assert.ok(html.some((h) => h.includes("status-completed") && h.includes('<span class="add">+todo: ship it</span>')));
    assert.ok(view.posted.some((m) => m.type === "busy" && m.busy === true));
    assert.equal(view.posted.filter((m) => m.type === "busy").at(-1)?.busy, false);
    assert.ok(stub.executed.some((e) => e.command === "vscode.diff"));
    assert.equal(readFileSync(join(ws, "notes.md"), "utf8"), "# Notes\n\ntodo: ship it\n");
    assert.ok(status.text.endsWith("(ask)"), status.text);

    // Switch Mode: a quick pick of the session's modes, then session/set_mode.
    stub.ui.answerQuickPick = (labels) => labels.find((l) => l === "Plan");
    await stub.commands.get("heron.switchMode")?.();
    assert.deepEqual(stub.quickPicks.at(-1), ["Ask", "Accept edits", "Plan", "Full access"]);
    assert.ok(status.text.endsWith("(plan)"), status.text);

    // Ask About Selection: the selected line goes as an embedded resource naming its range.
    const notes = new TextDocument(Uri.file(join(ws, "notes.md")), readFileSync(join(ws, "notes.md"), "utf8"), "markdown");
    const line = new Range(new Position(2, 0), new Position(2, 13));
    stub.activeEditor = { document: notes, selection: Object.assign(line, { isEmpty: false }) };
    stub.ui.answerInput = () => "what does this line say?";
    await stub.commands.get("heron.askAboutSelection")?.();
    await until("the answer about the selection", () => view.renderedItems().some((h) => h.includes("That line says")));
    const sent = stub.outputLines.find((l) => l.includes("session/prompt") && l.includes('"resource"'));
    assert.ok(sent?.includes(`notes.md#L3"`) && sent.includes("todo: ship it"), sent);

    // Load Session: pick the saved session; its conversation is replayed into the chat.
    await until("the ready state", () => status.text.includes("ready"));
    stub.ui.answerQuickPick = (labels) => labels[0];
    await stub.commands.get("heron.loadSession")?.();
    await until("the replayed first prompt", () => view.renderedItems()[0]?.includes("Please fill in the notes") ?? false);
    assert.ok(view.posted.filter((m) => m.type === "reset").length >= 2, "the chat was reset before the replay");
    assert.ok(view.renderedItems().some((h) => h.includes("That line says")));
  } finally {
    await deactivate();
  }
  assert.ok(status.text.includes("Heron") && !status.text.includes("error"), status.text);
});

test("an agent that cannot be started shows the error state and an error message", { timeout: 30_000 }, async () => {
  stub.config.set("heron.path", join(tmpdir(), "no-such-heron-binary"));
  stub.workspaceFolders = [{ uri: Uri.file(tmpdir()) }];
  activate(context() as never);
  const status = stub.statusItems[0];
  assert.ok(status);
  try {
    await stub.commands.get("heron.newSession")?.();
    assert.ok(stub.executed.some((e) => e.command === "heron.chat.focus"), "New Session opens the chat view");
    assert.equal(status.text, "$(error) Heron: error", status.text);
    assert.ok(stub.messages.some((m) => m.message.startsWith("Heron: ")), JSON.stringify(stub.messages));
  } finally {
    await deactivate();
  }
});
