// The extension as VS Code sees it: activate() on the stub, then the chat view driving a real
// `heron acp` from a typed prompt to the rendered reply.
import "./installVscodeStub";
import { HERON_BIN, heronSkip } from "./heronBin";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeEach, test } from "node:test";
import { activate, deactivate } from "../src/extension";
import { PROPOSAL_SCHEME } from "../src/permissionPrompt";
import { fakeHeronExecutable, until } from "./fakeAgent";
import { openChatView, type StubChatView } from "./stubChatView";
import { Position, Range, stub, TextDocument, Uri } from "./vscodeStub";

const skip = heronSkip(HERON_BIN);

interface Manifest {
  contributes: { commands: { command: string }[]; views: Record<string, { id: string }[]> };
}

function context(): { subscriptions: unknown[]; extensionUri: Uri } {
  return { subscriptions: [], extensionUri: Uri.file(resolve(".")) };
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
  const view = openChatView({ ready: false });
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
    // After Apply the edited file is shown, its changed line (the third) centred.
    const notesShown = stub.shownDocuments.find((d) => d.uri.fsPath === join(ws, "notes.md"));
    assert.equal(notesShown?.revealed[0]?.range.start.line, 2);
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

/** Activates with the scripted fake agent as `heron.path` and a resolved chat view. */
function activateWithFakeAgent(ws: string | undefined): { view: StubChatView; status: { text: string } } {
  stub.config.set("heron.path", fakeHeronExecutable());
  stub.config.set("heron.model", "fake:model");
  stub.config.set("heron.traceTraffic", true);
  stub.workspaceFolders = ws === undefined ? undefined : [{ uri: Uri.file(ws) }];
  activate(context() as never);
  const view = openChatView();
  const status = stub.statusItems[0];
  assert.ok(status);
  return { view, status };
}

const sentPrompts = (): string[] => stub.outputLines.filter((l) => l.startsWith("-> ") && l.includes('"session/prompt"'));

test("with no workspace folder open, no session is started and the user is told why", { timeout: 30_000 }, async () => {
  const { view, status } = activateWithFakeAgent(undefined);
  try {
    await stub.commands.get("heron.newSession")?.();
    view.receive({ type: "prompt", text: "hello" });
    const refusals = () => stub.messages.filter((m) => m.message.includes("open a folder first"));
    await until("both refusals", () => refusals().length >= 2, 5000);
    const errors = refusals();
    assert.equal(errors.length, 2, JSON.stringify(stub.messages));
    assert.ok(!stub.outputLines.some((l) => l.startsWith("starting:")), "no agent was started");
    assert.equal(status.text, "$(circle-outline) Heron");
  } finally {
    await deactivate();
  }
});

test("one turn at a time: a prompt or Ask About Selection while busy is refused; New Session cancels the turn", { timeout: 30_000 }, async () => {
  const ws = mkdtempSync(join(tmpdir(), "heron-busy-"));
  const { view, status } = activateWithFakeAgent(ws);
  try {
    view.receive({ type: "prompt", text: "hang" });
    await until("the turn to run", () => sentPrompts().length === 1 && status.text.includes("working"));
    assert.equal(view.posted.filter((m) => m.type === "busy").at(-1)?.busy, true, "the webview disables Send");

    view.receive({ type: "prompt", text: "second" });
    const notes = new TextDocument(Uri.file(join(ws, "a.txt")), "one\ntwo\n");
    stub.activeEditor = { document: notes, selection: Object.assign(new Range(new Position(0, 0), new Position(1, 0)), { isEmpty: false }) };
    stub.ui.answerInput = () => "what is this?";
    await stub.commands.get("heron.askAboutSelection")?.();
    const busyNotes = () => stub.messages.filter((m) => m.message.includes("still working")).length;
    await until("both refusals", () => busyNotes() >= 2, 5000);
    assert.equal(sentPrompts().length, 1, "nothing else was sent");
    assert.equal(stub.inputBoxes, 0, "no question asked for a prompt that would be refused");
    assert.equal(stub.messages.filter((m) => m.message.includes("still working")).length, 2, JSON.stringify(stub.messages));

    await stub.commands.get("heron.newSession")?.();
    assert.ok(stub.outputLines.some((l) => l.startsWith("-> ") && l.includes('"session/cancel"')));
    await until("the ready state", () => status.text.includes("ready"));
    assert.equal(view.posted.filter((m) => m.type === "busy").at(-1)?.busy, false);

    // Idle again: Ask About Selection goes through; a selection ending at column 0 of line 2 is line 1 only.
    await stub.commands.get("heron.askAboutSelection")?.();
    await until("the selection prompt", () => sentPrompts().length === 2);
    assert.ok(sentPrompts()[1]?.includes("a.txt#L1"), sentPrompts()[1]);
    assert.ok(!sentPrompts()[1]?.includes("#L1-2"), sentPrompts()[1]);
  } finally {
    await deactivate();
  }
});

test("the agent's environment has no VS Code Node/Electron variables; mode updates reach the status bar", { timeout: 30_000 }, async () => {
  const ws = mkdtempSync(join(tmpdir(), "heron-env-"));
  const saved = { ...process.env };
  Object.assign(process.env, { ELECTRON_RUN_AS_NODE: "1", NODE_OPTIONS: "--inspect", VSCODE_PID: "42" });
  const { view, status } = activateWithFakeAgent(ws);
  try {
    view.receive({ type: "prompt", text: "env" });
    await until("the env reply", () => view.renderedItems().some((h) => h.includes("HERON_MODEL")));
    const reply = view.renderedItems().find((h) => h.includes("HERON_MODEL")) ?? "";
    assert.ok(reply.includes("{&quot;ELECTRON_RUN_AS_NODE&quot;:null,&quot;NODE_OPTIONS&quot;:null,&quot;VSCODE_PID&quot;:null,&quot;HERON_MODEL&quot;:&quot;fake:model&quot;}"), reply);

    await until("ready", () => status.text.includes("ready"));
    view.receive({ type: "prompt", text: "mode" });
    await until("the mode in the status bar", () => status.text.endsWith("(plan)"));
    stub.ui.answerQuickPick = () => undefined;
    await stub.commands.get("heron.switchMode")?.();
    const items = stub.quickPickItems.at(-1) as { label: string; description: string }[];
    assert.deepEqual(
      items.map((i) => [i.label, i.description]),
      [
        ["Ask", ""],
        ["Plan", "current"],
      ],
    );
  } finally {
    for (const key of ["ELECTRON_RUN_AS_NODE", "NODE_OPTIONS", "VSCODE_PID"]) {
      if (key in saved) process.env[key] = saved[key];
      else Reflect.deleteProperty(process.env, key);
    }
    await deactivate();
  }
});

test("a file: link clicked in the chat opens the file in an editor, at its line", async () => {
  activate(context() as never);
  const view = openChatView({ ready: false });
  view.receive({ type: "openFile", href: "file:///w/src/a%20b.py#L12" });
  await until("the file opens", () => stub.shownDocuments.length === 1, 5000);
  assert.equal(stub.shownDocuments[0]?.uri.fsPath, "/w/src/a b.py");
  const options = stub.shownDocuments[0].options as { selection: Range };
  assert.equal(options.selection.start.line, 11);
  view.receive({ type: "openFile", href: "https://example.com/" });
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(stub.shownDocuments.length, 1, "only file: links");
  await deactivate();
});

test("a subagent's calls show inside its card; showing or hiding them is kept by the extension", { timeout: 30_000 }, async () => {
  const ws = mkdtempSync(join(tmpdir(), "heron-subagent-"));
  stub.ui.answerQuickPick = (labels) => labels.find((l) => l === "Allow");
  const { view, status } = activateWithFakeAgent(ws);
  try {
    view.receive({ type: "prompt", text: "subagent" });
    await until("the reply", () => view.renderedItems().some((h) => h.includes("subagent: ")));
    await until("the ready state", () => status.text.includes("ready"));
    assert.deepEqual(stub.quickPicks, [["Allow", "Reject"]], "the child's question was asked as any other");
    const cards = view.renderedItems().filter((h) => h.startsWith('<div class="tool '));
    assert.equal(cards.length, 1, "the child calls have no cards of their own");
    const card = cards[0] ?? "";
    assert.ok(card.includes('<span class="tool-title">Tidy the notes</span>') && card.includes('aria-expanded="false"'), card);
    assert.ok(card.includes('<span class="tool-title">Run rm notes.bak</span>') && card.includes("Subagent · 2 tool calls</button>"), card);

    const id = /data-tool="([^"]+)"/.exec(card)?.[1];
    assert.ok(id);
    const before = view.posted.length;
    view.receive({ type: "toggleTool", id, expanded: true });
    const redrawn = view.posted.slice(before).flatMap((m) => m.items ?? []);
    assert.equal(redrawn.length, 1);
    assert.ok(redrawn[0]?.html.includes('aria-expanded="true"') && !redrawn[0].html.includes(" hidden>"), redrawn[0]?.html);

    // The view opened again (a snapshot) keeps the choice.
    view.receive({ type: "ready" });
    assert.ok(view.renderedItems().some((h) => h.includes(`data-tool="${id}" aria-expanded="true"`)));
    const posted = view.posted.length;
    view.receive({ type: "toggleTool", id: "no-such-item", expanded: true });
    view.receive({ type: "toggleTool", id, expanded: "yes" });
    assert.equal(view.posted.length, posted, "nothing is drawn for an unknown item or a malformed message");
  } finally {
    await deactivate();
  }
});

test("a running subagent's Stop button (a child session) cancels that child alone; its card then says stopped", { timeout: 30_000 }, async () => {
  const ws = mkdtempSync(join(tmpdir(), "heron-child-stop-"));
  const { view, status } = activateWithFakeAgent(ws);
  try {
    view.receive({ type: "prompt", text: "stop-child" });
    await until("the Stop button", () => view.renderedItems().some((h) => h.includes('class="stop-subagent"')));
    const card = view.renderedItems().find((h) => h.includes('class="stop-subagent"')) ?? "";
    assert.ok(card.includes('<span class="subagent-state" data-state="running">running</span>'), card);
    const child = /data-session="([^"]+)"/.exec(card)?.[1];
    assert.ok(child?.endsWith("-slow"), card);
    view.receive({ type: "stopSubagent", sessionId: 42 }); // malformed: ignored
    view.receive({ type: "stopSubagent", sessionId: child });
    await until("the reply", () => view.renderedItems().some((h) => h.includes("going on")));
    await until("the ready state", () => status.text.includes("ready"));
    const cancels = stub.outputLines.filter((l) => l.startsWith("-> ") && l.includes('"session/cancel"'));
    assert.deepEqual(
      cancels.map((l) => (JSON.parse(l.slice(3)) as { params: unknown }).params),
      [{ sessionId: child }],
      "session/cancel with the child's id, once; the parent's turn is not cancelled",
    );
    const stopped = view.renderedItems().find((h) => h.includes(`data-tool-call-id="d1"`)) ?? "";
    assert.ok(stopped.includes('data-state="stopped">stopped</span>') && !stopped.includes("stop-subagent"), stopped);
  } finally {
    await deactivate();
  }
});
