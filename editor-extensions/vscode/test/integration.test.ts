// End to end: the extension's ACP client layer (on the vscode stub) drives the real `heron acp`.
import "./installVscodeStub";
import { HERON_BIN, heronSkip, scriptedHeron } from "./heronBin";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { ReadTextFileRequest, WriteTextFileRequest } from "@agentclientprotocol/sdk";
import { VscodeDiagnosticsHandler } from "../src/diagnosticsHandler";
import { VscodeFsHandler } from "../src/fsHandler";
import type { HeaderState } from "../src/header";
import type { Log } from "../src/log";
import { PROPOSAL_SCHEME, ProposalProvider, VscodePermissionPrompter } from "../src/permissionPrompt";
import { SessionController, type SessionState } from "../src/session";
import { subagentStateLabel, type Item } from "../src/transcript";
import { VscodeTerminalHandler } from "../src/terminals";
import { until } from "./fakeAgent";
import { Diagnostic, DiagnosticSeverity, Position, Range, stub, Uri, workspace } from "./vscodeStub";

const skip = heronSkip(HERON_BIN);

const OLD = 'def greet():\n    return "Hello, world"\n';
const NEW = 'def greet():\n    return "Hello, Heron"\n';

function writeScript(dir: string): string {
  const script = {
    rules: [
      {
        match: "fix the greeting",
        replies: [
          [{ thinking: "Read it first." }, { tool_call: { name: "read_file", arguments: { path: "greet.py" } } }],
          [
            {
              tool_call: {
                name: "edit_file",
                arguments: { path: "greet.py", edits: [{ old_string: "Hello, world", new_string: "Hello, Heron" }] },
              },
            },
          ],
          [{ text: "Done: **greet()** now says `Hello, Heron`." }],
        ],
      },
    ],
  };
  const path = join(dir, "script.json");
  writeFileSync(path, JSON.stringify(script));
  return path;
}

test("a prompt edits a file through the diff review, a WorkspaceEdit and a save", { skip, timeout: 90_000 }, async () => {
  stub.reset();
  const root = mkdtempSync(join(tmpdir(), "heron-vscode-it-"));
  const home = mkdtempSync(join(root, "home-"));
  const ws = mkdtempSync(join(root, "ws-"));
  const file = join(ws, "greet.py");
  writeFileSync(file, OLD);
  const script = writeScript(root);

  const logLines: string[] = [];
  const log: Log = { info: (m) => logLines.push(m), traffic: (d, l) => logLines.push(`${d} ${l}`) };
  const fsCalls: string[] = [];
  const realFs = new VscodeFsHandler();
  const fs = {
    readTextFile: (p: ReadTextFileRequest) => {
      fsCalls.push(`read ${p.path}`);
      return realFs.readTextFile(p);
    },
    writeTextFile: (p: WriteTextFileRequest) => {
      fsCalls.push(`write ${p.path}`);
      return realFs.writeTextFile(p);
    },
  };
  const proposals = new ProposalProvider();
  workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, proposals);
  // A language extension: one diagnostic before the edit, another published a little after it.
  const diagnostics = new VscodeDiagnosticsHandler();
  const unused = new Diagnostic(new Range(new Position(0, 4), new Position(0, 9)), "greet is not accessed", DiagnosticSeverity.Hint);
  const after = new Diagnostic(new Range(new Position(1, 11), new Position(1, 25)), "a new greeting", DiagnosticSeverity.Warning);
  stub.setDiagnostics(Uri.file(file), [unused]);
  const languageService = workspace.onDidChangeTextDocument(({ document }) => {
    if (document.uri.fsPath === file) setTimeout(() => stub.setDiagnostics(document.uri, [unused, after]), 30);
  });

  let reviewed: { left: string; leftText: string; right: string; rightText: string | undefined } | undefined;
  stub.ui.answerMessage = (_message, items) => {
    const diff = stub.executed.find((e) => e.command === "vscode.diff");
    if (diff) {
      const [left, right] = diff.args as [Uri, Uri];
      reviewed = {
        left: left.toString(),
        leftText: readFileSync(left.fsPath, "utf8"),
        right: right.toString(),
        rightText: stub.virtualText(right),
      };
    }
    return items.includes("Apply") ? "Apply" : undefined;
  };

  const states: SessionState[] = [];
  const session = new SessionController({
    // The session starts in accept-edits: only a working session/set_mode to "ask" makes it ask.
    agentCommand: scriptedHeron(ws, home, script, { HERON_MODE: "accept-edits" }),
    initialMode: () => "ask",
    fs,
    terminals: new VscodeTerminalHandler(),
    permissions: new VscodePermissionPrompter(proposals),
    diagnostics,
    log,
    listener: { onState: (s) => states.push(s), onItems: () => undefined, onReset: () => undefined },
  });

  try {
    const stopReason = await session.prompt([{ type: "text", text: "Please fix the greeting" }], "Please fix the greeting", ws);
    assert.equal(stopReason, "end_turn", logLines.join("\n"));
    assert.equal(session.modes?.currentModeId, "ask");

    // The review: vscode.diff between the file as it is and the proposal.
    assert.ok(reviewed, `no diff was reviewed; messages: ${JSON.stringify(stub.messages)}`);
    assert.equal(reviewed.left, Uri.file(file).toString());
    assert.equal(reviewed.leftText, OLD);
    assert.ok(reviewed.right.startsWith(`${PROPOSAL_SCHEME}://`), reviewed.right);
    assert.equal(reviewed.rightText, NEW);
    assert.ok(states.includes("waiting"), states.join(","));

    // The write: through fs/write_text_file -> one whole-document WorkspaceEdit -> save.
    // (Heron reads through fs/read_text_file for read_file and again before editing.)
    assert.equal(fsCalls.at(-1), `write ${file}`);
    const reads = fsCalls.slice(0, -1);
    assert.ok(reads.length >= 1 && reads.every((c) => c === `read ${file}`), fsCalls.join(", "));
    assert.equal(stub.appliedEdits.length, 1);
    const op = stub.appliedEdits[0]?.ops[0];
    assert.ok(op?.kind === "replace");
    assert.equal(op.uri.fsPath, file);
    assert.equal(op.text, NEW);
    assert.equal(readFileSync(file, "utf8"), NEW);

    // The edited file's diagnostics, asked of VS Code: after the write, once its language
    // service has published again (settleMs is a limit, not a delay).
    const asked = logLines.filter((l) => l.startsWith("<- ") && l.includes('"_heron/diagnostics"'));
    const settled = asked.find((l) => !l.includes('"settleMs":0'));
    assert.ok(settled !== undefined && settled.includes(JSON.stringify(file)), asked.join("\n"));
    const id = (JSON.parse(settled.slice(3)) as { id: number }).id;
    const found = logLines.find((l) => l.startsWith(`-> {"jsonrpc":"2.0","id":${id},"result"`));
    assert.ok(found?.includes('"severity":"warning","message":"a new greeting"'), found);

    // What the chat view shows.
    const items = session.transcript.items;
    assert.deepEqual(
      items.flatMap((i) => (i.kind === "tool" ? [[i.toolKind, i.status]] : [])),
      [
        ["read", "completed"],
        ["edit", "completed"],
      ],
    );
    const answer = items.filter((i) => i.kind === "agent").map((i) => (i.kind === "agent" ? i.text : ""));
    assert.deepEqual(answer, ["Done: **greet()** now says `Hello, Heron`."]);
    assert.ok(items.some((i) => i.kind === "thought" && i.text === "Read it first."));
    assert.ok(session.transcript.usage && session.transcript.usage.used > 0, "usage_update arrived");

    // The session is kept: list it and load it again, replaying the conversation.
    const sessionId = session.sessionId;
    const listed = await session.listSessions(ws);
    assert.ok(listed.some((s) => s.sessionId === sessionId), JSON.stringify(listed));
    assert.ok(sessionId);
    await session.loadSession(sessionId, ws);
    const replayed = session.transcript.items;
    assert.ok(
      replayed.some((i) => i.kind === "agent" && i.text === "Done: **greet()** now says `Hello, Heron`."),
      JSON.stringify(replayed),
    );
    assert.ok(replayed.some((i) => i.kind === "tool" && i.toolKind === "edit" && i.status === "completed"));
  } finally {
    await session.stop();
    languageService.dispose();
    diagnostics.dispose();
  }
  assert.equal(session.currentState, "stopped");
});

test("a subagent of the real agent, a child session, is nested under its delegate call, live and on load", { skip, timeout: 90_000 }, async () => {
  stub.reset();
  const root = mkdtempSync(join(tmpdir(), "heron-vscode-sub-"));
  const home = mkdtempSync(join(root, "home-"));
  const ws = mkdtempSync(join(root, "ws-"));
  writeFileSync(join(ws, "notes.md"), "# Notes\n\nship it\n");
  const script = join(root, "script.json");
  writeFileSync(
    script,
    JSON.stringify({
      rules: [
        {
          match: "SUBTASK-NOTES",
          // The text first: the child's call id (numbered by its place in the reply) differs from its parent's.
          replies: [[{ text: "Reading." }, { tool_call: { name: "read_file", arguments: { path: "notes.md" } } }], [{ text: "The notes say ship it." }]],
        },
        {
          match: "survey the notes",
          replies: [[{ tool_call: { name: "delegate", arguments: { task: "Read notes.md (SUBTASK-NOTES)" } } }], [{ text: "Surveyed." }]],
        },
      ],
    }),
  );
  const logLines: string[] = [];
  const session = new SessionController({
    agentCommand: scriptedHeron(ws, home, script),
    initialMode: () => "ask",
    fs: new VscodeFsHandler(),
    terminals: new VscodeTerminalHandler(),
    permissions: { request: () => Promise.resolve({ outcome: { outcome: "cancelled" } }) },
    log: { info: (m) => logLines.push(m), traffic: (d, l) => logLines.push(`${d} ${l}`) },
    listener: { onState: () => undefined, onItems: () => undefined, onReset: () => undefined },
  });
  type Shape = [string, string, string | null, Shape[]];
  const shape = (items: readonly Item[]): Shape[] =>
    items.flatMap((i) =>
      i.kind === "tool" ? [[i.title, i.status, i.subagent ? subagentStateLabel(i.subagent) : null, shape(i.children)] satisfies Shape] : [],
    );
  const received = (kind: string): string[] => logLines.filter((l) => l.startsWith("<- ") && l.includes(kind));
  try {
    const stop = await session.prompt([{ type: "text", text: "Please survey the notes" }], "Please survey the notes", ws);
    assert.equal(stop, "end_turn", logLines.join("\n"));
    // The extension takes child sessions, so Heron sends the subagent as one: announced on the
    // parent, its work under its own id, the delegate call linked to it.
    assert.ok(logLines.some((l) => l.startsWith("-> ") && l.includes('"initialize"') && l.includes('"subagents":{}')));
    assert.ok(received('"subagent_update"').length >= 2 && received('"type":"session"').length >= 1, logLines.join("\n"));
    assert.ok(!received('"parentToolCallId"').length, "not the older _meta shape");
    const live = shape(session.transcript.items);
    assert.deepEqual(live, [["Read notes.md (SUBTASK-NOTES)", "completed", "done", [["Read notes.md", "completed", null, []]]]], logLines.join("\n"));
    const delegate = session.transcript.items.find((i) => i.kind === "tool");
    assert.equal(delegate?.kind === "tool" ? delegate.subagent?.summary : null, "The notes say ship it.");
    const sessionId = session.sessionId;
    assert.ok(sessionId);
    await session.loadSession(sessionId, ws);
    assert.deepEqual(shape(session.transcript.items), live, logLines.join("\n"));
  } finally {
    await session.stop();
  }
});

test("the real agent's config options: the mode set through session/set_config_option; the session listed with its title", { skip, timeout: 90_000 }, async () => {
  stub.reset();
  const root = mkdtempSync(join(tmpdir(), "heron-vscode-header-"));
  const home = mkdtempSync(join(root, "home-"));
  const ws = mkdtempSync(join(root, "ws-"));
  const script = join(root, "script.json");
  writeFileSync(script, JSON.stringify({ rules: [{ match: "say hello", replies: [[{ text: "Hello." }]] }] }));
  const logLines: string[] = [];
  const headers: HeaderState[] = [];
  const session = new SessionController({
    agentCommand: scriptedHeron(ws, home, script, { HERON_MODE: "ask" }),
    initialMode: () => undefined,
    fs: new VscodeFsHandler(),
    terminals: new VscodeTerminalHandler(),
    permissions: { request: () => Promise.resolve({ outcome: { outcome: "cancelled" } }) },
    log: { info: (m) => logLines.push(m), traffic: (d, l) => logLines.push(`${d} ${l}`) },
    listener: { onState: () => undefined, onItems: () => undefined, onReset: () => undefined, onHeader: (h) => headers.push(h) },
  });
  const current = (id: string): string | undefined => {
    const option = headers.at(-1)?.configOptions.find((o) => o.id === id);
    return option?.type === "select" ? option.currentValue : undefined;
  };
  try {
    const sessionId = await session.newSession(ws);
    assert.deepEqual(
      headers.at(-1)?.configOptions.map((o) => [o.id, o.type]).slice(0, 2),
      [
        ["mode", "select"],
        ["model", "select"],
      ],
      logLines.join("\n"),
    );
    assert.equal(current("mode"), "ask");
    assert.equal(current("model"), `scripted:${script}`);

    await session.setOption("mode", "plan");
    assert.ok(logLines.some((l) => l.startsWith("->") && l.includes('"session/set_config_option"') && l.includes('"value":"plan"')));
    assert.equal(current("mode"), "plan");
    assert.equal(session.modes?.currentModeId, "plan");
    await assert.rejects(session.setOption("mode", "nonsense"), /unknown mode/);
    assert.equal(current("mode"), "plan", "a refused value changes nothing");

    assert.equal(await session.prompt([{ type: "text", text: "Please say hello" }], "Please say hello", ws), "end_turn", logLines.join("\n"));
    assert.equal(headers.at(-1)?.title, "Please say hello", "session_info_update");
    await until("the titled session in the list", () => headers.at(-1)?.sessions.some((s) => s.sessionId === sessionId && s.title === "Please say hello") ?? false);
    const listed = await session.listSessions(ws);
    assert.equal(listed.find((s) => s.sessionId === sessionId)?.title, "Please say hello", JSON.stringify(listed));

    // The mode is the session's: loading it brings it back.
    await session.newSession(ws);
    assert.equal(current("mode"), "ask");
    await session.loadSession(sessionId, ws);
    assert.equal(current("mode"), "plan");
  } finally {
    await session.stop();
  }
});
