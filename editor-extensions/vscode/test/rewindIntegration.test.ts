// "Rewind to here" and "Edit and resend" against the real `heron acp` (its scripted model): the
// prompts' ids, the restore preview and its question, the files and the conversation afterwards.
import "./installVscodeStub";
import { HERON_BIN, heronSkip, scriptedHeron } from "./heronBin";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import { VscodeFsHandler } from "../src/fsHandler";
import { SessionController } from "../src/session";
import type { Item } from "../src/transcript";
import { VscodeTerminalHandler } from "../src/terminals";
import { stub } from "./vscodeStub";

const skip = heronSkip(HERON_BIN);

const BEFORE = "ALPHA = 1\n";
const BETA = "ALPHA = 1\nBETA = 2\n";
const GAMMA = "ALPHA = 1\nGAMMA = 3\n";

/** Each prompt reads notes.py, then edits it (the stale-read guard wants the read), then answers. */
function rule(match: string, add: string, answer: string): unknown {
  return {
    match,
    replies: [
      [{ tool_call: { name: "read_file", arguments: { path: "notes.py" } } }],
      [{ tool_call: { name: "edit_file", arguments: { path: "notes.py", edits: [{ old_string: "ALPHA = 1\n", new_string: `ALPHA = 1\n${add}` }] } } }],
      [{ text: answer }],
    ],
  };
}

interface World {
  session: SessionController;
  file: string;
  ws: string;
  asked: RequestPermissionRequest[];
  log: string[];
}

/** `restore`: how the restore question is answered. Edits apply without asking (accept-edits). */
function world(restore: () => boolean): World {
  stub.reset();
  const root = mkdtempSync(join(tmpdir(), "heron-vscode-rewind-"));
  const home = mkdtempSync(join(root, "home-"));
  const ws = mkdtempSync(join(root, "ws-"));
  const file = join(ws, "notes.py");
  writeFileSync(file, BEFORE);
  const script = join(root, "script.json");
  writeFileSync(script, JSON.stringify({ rules: [rule("add beta", "BETA = 2\n", "Added BETA."), rule("add gamma", "GAMMA = 3\n", "Added GAMMA.")] }));
  const asked: RequestPermissionRequest[] = [];
  const log: string[] = [];
  const session = new SessionController({
    agentCommand: scriptedHeron(ws, home, script),
    initialMode: () => "accept-edits",
    fs: new VscodeFsHandler(),
    terminals: new VscodeTerminalHandler(),
    permissions: {
      request: (params): Promise<RequestPermissionResponse> => {
        asked.push(params);
        const wanted = restore() ? params.options.find((o) => o.name === "Restore these files") : params.options.find((o) => o.kind === "reject_once");
        return Promise.resolve({ outcome: { outcome: "selected", optionId: wanted?.optionId ?? "" } });
      },
    },
    log: { info: (m) => log.push(m), traffic: (d, l) => log.push(`${d} ${l}`) },
    listener: { onState: () => undefined, onItems: () => undefined, onReset: () => undefined },
  });
  return { session, file, ws, asked, log };
}

const text = (t: string) => [{ type: "text" as const, text: t }];

function shape(items: readonly Item[]): string[] {
  return items.map((i) => {
    if (i.kind === "tool") return `tool:${i.title}:${i.status}`;
    if (i.kind === "notice") return `notice:${i.title}`;
    if (i.kind === "plan") return "plan";
    return `${i.kind}:${i.text.trim()}`;
  });
}

function promptId(items: readonly Item[], prompt: string): string {
  const found = items.find((i) => i.kind === "user" && i.text === prompt);
  assert.ok(found?.kind === "user" && found.messageId !== null, `no id for "${prompt}"`);
  return found.messageId;
}

test("the real agent: Edit and resend restores the file (asked first), then the new prompt's turn runs in its place", { skip, timeout: 90_000 }, async () => {
  let restore = false;
  const w = world(() => restore);
  try {
    assert.equal(await w.session.prompt(text("Please add beta."), "Please add beta.", w.ws), "end_turn", w.log.join("\n"));
    assert.deepEqual(w.session.rewindSupport, { rewind: true, editPrompt: true });
    assert.equal(readFileSync(w.file, "utf8"), BETA);
    const id = promptId(w.session.transcript.items, "Please add beta.");

    // Declined: nothing changes, and the chat says so in Heron's words.
    assert.equal(await w.session.editPrompt(id, text("Please add gamma."), "Please add gamma."), null);
    assert.equal(readFileSync(w.file, "utf8"), BETA);
    assert.equal(w.asked.length, 1);
    assert.match(w.asked[0]?.toolCall.title ?? "", /^Restore the workspace to checkpoint \d+/);
    assert.ok(w.asked[0]?.toolCall.content?.some((c) => c.type === "diff"), "the preview has a diff");
    const declined = w.session.transcript.items.at(-1);
    assert.ok(declined?.kind === "notice" && declined.title === "Edit and resend failed." && /declined/.test(declined.description), JSON.stringify(declined));
    assert.equal(w.session.transcript.promptIndex(id), 0, "the old prompt is back");

    restore = true;
    assert.equal(await w.session.editPrompt(id, text("Please add gamma."), "Please add gamma."), "end_turn", w.log.join("\n"));
    assert.equal(readFileSync(w.file, "utf8"), GAMMA);
    const items = shape(w.session.transcript.items);
    assert.equal(items[0], "user:Please add gamma.");
    assert.ok(!items.includes("user:Please add beta.") && !items.includes("agent:Added BETA."), items.join("\n"));
    assert.ok(items.includes("agent:Added GAMMA.") && items.some((i) => /^tool:Restore the workspace to checkpoint \d+:completed$/.test(i)), items.join("\n"));
    const newId = promptId(w.session.transcript.items, "Please add gamma.");
    assert.notEqual(newId, id);

    // Loaded again, the conversation is the new prompt's alone, its prompt named by the same id.
    await w.session.loadSession(w.session.sessionId ?? "", w.ws);
    const replayed = shape(w.session.transcript.items);
    assert.ok(replayed.includes("user:Please add gamma.") && !replayed.includes("user:Please add beta."), replayed.join("\n"));
    assert.equal(promptId(w.session.transcript.items, "Please add gamma."), newId);
  } finally {
    await w.session.stop();
  }
});

test("the real agent: Rewind to here takes the prompt out, restores its file and gives its text back", { skip, timeout: 90_000 }, async () => {
  const w = world(() => true);
  try {
    assert.equal(await w.session.prompt(text("Please add beta."), "Please add beta.", w.ws), "end_turn", w.log.join("\n"));
    const id = promptId(w.session.transcript.items, "Please add beta.");
    assert.equal(await w.session.rewind(id), "Please add beta.", w.log.join("\n"));
    assert.equal(readFileSync(w.file, "utf8"), BEFORE);
    const items = shape(w.session.transcript.items);
    assert.ok(!items.includes("user:Please add beta.") && !items.includes("agent:Added BETA."), items.join("\n"));
    assert.equal(items.at(-1), "notice:Rewound.");
    const notice = w.session.transcript.items.at(-1);
    assert.ok(notice?.kind === "notice" && /Restored 1: notes\.py\./.test(notice.description), JSON.stringify(notice));
    // Gone from Heron's side too: a second rewind to it is refused, and the chat says why.
    const back = w.session.transcript.items.length;
    w.session.transcript.addUserPrompt("Please add beta.", id);
    assert.equal(await w.session.rewind(id), null);
    const refused = w.session.transcript.items.at(-1);
    assert.ok(refused?.kind === "notice" && refused.title === "Rewind failed." && refused.description.includes(id), JSON.stringify(refused));
    assert.equal(w.session.transcript.items.length, back + 2);
  } finally {
    await w.session.stop();
  }
});
