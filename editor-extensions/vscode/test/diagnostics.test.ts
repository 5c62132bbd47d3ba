// `_heron/diagnostics`: the translation of VS Code diagnostics, the handler on the stubbed
// `vscode.languages` (paths, the whole workspace, the settle wait), and the wire through the
// session controller against the scripted fake agent (the capability, the session check).
import "./installVscodeStub";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, test } from "node:test";
import { RequestError } from "@agentclientprotocol/sdk";
import { isInside, parseDiagnosticsParams, toWireDiagnostic, type DiagnosticsHandler } from "../src/diagnostics";
import { VscodeDiagnosticsHandler } from "../src/diagnosticsHandler";
import { SessionController } from "../src/session";
import { fakeAgentCommand } from "./fakeAgent";
import { Diagnostic, DiagnosticSeverity, Position, Range, stub, Uri, workspace, WorkspaceEdit } from "./vscodeStub";

beforeEach(() => stub.reset());

const at = (line: number, character: number, endLine = line, endCharacter = character + 1): Range =>
  new Range(new Position(line, character), new Position(endLine, endCharacter));

function diagnostic(message: string, severity = DiagnosticSeverity.Error, extra: Partial<Diagnostic> = {}): Diagnostic {
  return Object.assign(new Diagnostic(at(0, 0), message, severity), extra);
}

test("translation: severities by VS Code's enum, 0-based ranges, source, codes and code objects", () => {
  const severities = [DiagnosticSeverity.Error, DiagnosticSeverity.Warning, DiagnosticSeverity.Information, DiagnosticSeverity.Hint];
  assert.deepEqual(
    severities.map((s) => toWireDiagnostic(diagnostic("m", s)).severity),
    ["error", "warning", "information", "hint"],
  );
  const full = Object.assign(new Diagnostic(at(4, 2, 5, 7), "Name 'x' is not defined", DiagnosticSeverity.Warning), {
    source: "Pylance",
    code: { value: "reportUndefinedVariable", target: Uri.file("/docs") },
  });
  assert.deepEqual(toWireDiagnostic(full), {
    range: { start: { line: 4, character: 2 }, end: { line: 5, character: 7 } },
    severity: "warning",
    message: "Name 'x' is not defined",
    source: "Pylance",
    code: "reportUndefinedVariable",
  });
  assert.equal(toWireDiagnostic(diagnostic("m", DiagnosticSeverity.Error, { code: 2304 })).code, 2304);
  assert.equal(toWireDiagnostic(diagnostic("m", DiagnosticSeverity.Error, { code: { value: 7, target: Uri.file("/") } })).code, 7);
  const bare = toWireDiagnostic(diagnostic("m"));
  assert.ok(!("code" in bare) && !("source" in bare), JSON.stringify(bare));
});

test("inside the workspace: the root and below, not a sibling with the same prefix, not relative paths", () => {
  assert.ok(isInside("/w/a", ["/w/a"]));
  assert.ok(isInside("/w/a/src/x.py", ["/w/a"]));
  assert.ok(isInside("/w/a/..hidden/x.py", ["/w/a"]));
  assert.ok(isInside("/w/b/x.py", ["/w/a", "/w/b/"]));
  assert.ok(!isInside("/w/ab/x.py", ["/w/a"]));
  assert.ok(!isInside("/w/a/../b/x.py", ["/w/a"]));
  assert.ok(!isInside("/etc/passwd", ["/w/a"]));
  assert.ok(!isInside("src/x.py", ["/w/a"]));
});

test("params: settleMs defaults to 0 and is bounded; a wrong shape is invalid params", () => {
  assert.deepEqual(parseDiagnosticsParams({ sessionId: "s" }), { sessionId: "s", settleMs: 0 });
  assert.deepEqual(parseDiagnosticsParams({ sessionId: "s", paths: ["/a"], settleMs: 750 }), {
    sessionId: "s",
    paths: ["/a"],
    settleMs: 750,
  });
  assert.equal(parseDiagnosticsParams({ sessionId: "s", settleMs: -5 }).settleMs, 0);
  assert.equal(parseDiagnosticsParams({ sessionId: "s", settleMs: 1e9 }).settleMs, 30_000);
  for (const bad of [null, {}, { sessionId: 1 }, { sessionId: "s", paths: "/a" }, { sessionId: "s", paths: [1] }, { sessionId: "s", settleMs: "1" }]) {
    assert.throws(
      () => parseDiagnosticsParams(bad),
      (err: unknown) => err instanceof RequestError && err.code === -32602,
      JSON.stringify(bad),
    );
  }
});

const ROOT = "/w/project";
const never = new AbortController().signal;

test("handler: the given paths in order, those outside the workspace with an empty list", async () => {
  const handler = new VscodeDiagnosticsHandler();
  try {
    stub.setDiagnostics(Uri.file(`${ROOT}/a.py`), [diagnostic("bad a", DiagnosticSeverity.Error, { source: "ruff", code: "F821" })]);
    stub.setDiagnostics(Uri.file("/elsewhere/b.py"), [diagnostic("bad b")]);
    const result = await handler.diagnostics(
      { sessionId: "s", paths: [`${ROOT}/a.py`, `${ROOT}/clean.py`, "/elsewhere/b.py"], settleMs: 0 },
      [ROOT],
      never,
    );
    assert.deepEqual(result, {
      files: [
        {
          path: `${ROOT}/a.py`,
          diagnostics: [
            {
              range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
              severity: "error",
              message: "bad a",
              source: "ruff",
              code: "F821",
            },
          ],
        },
        { path: `${ROOT}/clean.py`, diagnostics: [] },
        { path: "/elsewhere/b.py", diagnostics: [] },
      ],
    });
  } finally {
    handler.dispose();
  }
});

test("handler: without paths, every file inside the workspace that has diagnostics", async () => {
  const handler = new VscodeDiagnosticsHandler();
  try {
    stub.setDiagnostics(Uri.file(`${ROOT}/a.py`), [diagnostic("one"), diagnostic("two", DiagnosticSeverity.Hint)]);
    stub.setDiagnostics(Uri.file(`${ROOT}/fixed.py`), []);
    stub.setDiagnostics(Uri.file("/elsewhere/b.py"), [diagnostic("outside")]);
    stub.setDiagnostics(Uri.from({ scheme: "untitled", path: `${ROOT}/Untitled-1` }), [diagnostic("unsaved")]);
    const { files } = await handler.diagnostics({ sessionId: "s", settleMs: 0 }, [ROOT], never);
    assert.deepEqual(
      files.map((f) => [f.path, f.diagnostics.map((d) => `${d.severity}: ${d.message}`)]),
      [[`${ROOT}/a.py`, ["error: one", "hint: two"]]],
    );
  } finally {
    handler.dispose();
  }
});

/** A file Heron has just written: its text changed in the editor, its diagnostics not yet. */
async function written(): Promise<{ path: string; uri: Uri; root: string }> {
  const root = mkdtempSync(join(tmpdir(), "heron-diag-"));
  const path = join(root, "a.py");
  writeFileSync(path, "x = 1\n");
  const uri = Uri.file(path);
  stub.setDiagnostics(uri, []); // from before the edit
  const edit = new WorkspaceEdit();
  edit.replace(uri, at(0, 0, 0, 5), "x = y");
  assert.ok(await workspace.applyEdit(edit));
  return { path, uri, root };
}

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
}

test("settle: waits for the written file's new diagnostics, then a quiet period, not for settleMs", async () => {
  const handler = new VscodeDiagnosticsHandler(30);
  try {
    const { path, uri, root } = await written();
    setTimeout(() => stub.setDiagnostics(Uri.file("/w/other.py"), [diagnostic("elsewhere")]), 20);
    setTimeout(() => stub.setDiagnostics(uri, [diagnostic("first pass")]), 60);
    setTimeout(() => stub.setDiagnostics(uri, [diagnostic("y is not defined")]), 75); // within the quiet period
    const { value, ms } = await timed(handler.diagnostics({ sessionId: "s", paths: [path], settleMs: 5000 }, [root], never));
    assert.deepEqual(value.files[0]?.diagnostics.map((d) => d.message), ["y is not defined"]);
    assert.ok(ms >= 95 && ms < 1000, `answered after ${ms} ms`);
  } finally {
    handler.dispose();
  }
});

test("settle: no new diagnostics: answered when settleMs has passed, not later", async () => {
  const handler = new VscodeDiagnosticsHandler(30);
  try {
    const { path, root } = await written();
    const { value, ms } = await timed(handler.diagnostics({ sessionId: "s", paths: [path], settleMs: 200 }, [root], never));
    assert.deepEqual(value.files, [{ path, diagnostics: [] }]);
    assert.ok(ms >= 190 && ms < 700, `answered after ${ms} ms`);
  } finally {
    handler.dispose();
  }
});

test("settle: at once when settleMs is 0, when the diagnostics are already newer than the text, or when cancelled", async () => {
  const handler = new VscodeDiagnosticsHandler(30);
  try {
    const { path, uri, root } = await written();
    const now = await timed(handler.diagnostics({ sessionId: "s", paths: [path], settleMs: 0 }, [root], never));
    assert.ok(now.ms < 100, `settleMs 0: ${now.ms} ms`);

    const cancel = new AbortController();
    setTimeout(() => cancel.abort(), 30);
    const cancelled = await timed(handler.diagnostics({ sessionId: "s", paths: [path], settleMs: 5000 }, [root], cancel.signal));
    assert.ok(cancelled.ms < 1000, `cancelled: ${cancelled.ms} ms`);

    stub.setDiagnostics(uri, [diagnostic("y is not defined")]); // caught up before Heron asks
    const caughtUp = await timed(handler.diagnostics({ sessionId: "s", paths: [path], settleMs: 5000 }, [root], never));
    assert.ok(caughtUp.ms < 100, `caught up: ${caughtUp.ms} ms`);
    assert.equal(caughtUp.value.files[0]?.diagnostics[0]?.message, "y is not defined");
  } finally {
    handler.dispose();
  }
});

test("settle: a path outside the workspace is not waited for", async () => {
  const handler = new VscodeDiagnosticsHandler(30);
  try {
    const { path } = await written();
    const { value, ms } = await timed(handler.diagnostics({ sessionId: "s", paths: [path], settleMs: 5000 }, ["/w/project"], never));
    assert.deepEqual(value.files, [{ path, diagnostics: [] }]);
    assert.ok(ms < 100, `${ms} ms`);
  } finally {
    handler.dispose();
  }
});

function controller(cwd: string, diagnostics?: DiagnosticsHandler): SessionController {
  const no = (): Promise<never> => Promise.reject(new Error("no"));
  return new SessionController({
    agentCommand: () => fakeAgentCommand(cwd),
    initialMode: () => undefined,
    fs: { readTextFile: no, writeTextFile: no },
    terminals: {
      create: no,
      output: () => ({ output: "", truncated: false }),
      waitForExit: no,
      kill: () => undefined,
      release: () => undefined,
      releaseAll: () => undefined,
    },
    permissions: { request: () => Promise.resolve({ outcome: { outcome: "cancelled" } }) },
    ...(diagnostics ? { diagnostics } : {}),
    log: { info: () => undefined, traffic: () => undefined },
    listener: { onState: () => undefined, onItems: () => undefined, onReset: () => undefined },
  });
}

/** What the fake agent said in answer to `prompt`. */
async function ask(session: SessionController, prompt: string, cwd: string): Promise<unknown> {
  await session.prompt([{ type: "text", text: prompt }], prompt, cwd);
  const said = session.transcript.items.at(-1);
  assert.ok(said?.kind === "agent", JSON.stringify(said));
  return JSON.parse(said.text);
}

test("over the wire: advertised in initialize, answered for the session's folder, an error for another session", async () => {
  const cwd = mkdtempSync(join(tmpdir(), "heron-diag-session-"));
  const asked: { paths: string[] | undefined; roots: readonly string[] }[] = [];
  const session = controller(cwd, {
    diagnostics: (params, roots) => {
      asked.push({ paths: params.paths, roots });
      return Promise.resolve({ files: (params.paths ?? []).map((path) => ({ path, diagnostics: [] })) });
    },
  });
  try {
    assert.deepEqual(await ask(session, "capabilities", cwd), {
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
      subagents: {},
      _meta: { heron: { diagnostics: true } },
    });
    const file = join(cwd, "a.py");
    assert.deepEqual(await ask(session, `diagnostics ${JSON.stringify({ paths: [file], settleMs: 0 })}`, cwd), {
      files: [{ path: file, diagnostics: [] }],
    });
    assert.deepEqual(asked, [{ paths: [file], roots: [cwd] }]);

    const foreign = (await ask(session, 'diagnostics {"sessionId": "another", "settleMs": 0}', cwd)) as { error: { code: number } };
    assert.equal(foreign.error.code, -32002);
    const malformed = (await ask(session, 'diagnostics {"paths": "a.py"}', cwd)) as { error: { code: number } };
    assert.equal(malformed.error.code, -32602);
    assert.equal(asked.length, 1, "neither reached the handler");
  } finally {
    await session.stop();
  }
});

test("over the wire: without a diagnostics handler, neither advertised nor answered", async () => {
  const cwd = mkdtempSync(join(tmpdir(), "heron-diag-session-"));
  const session = controller(cwd);
  try {
    assert.deepEqual(await ask(session, "capabilities", cwd), { fs: { readTextFile: true, writeTextFile: true }, terminal: true, subagents: {} });
    const answer = (await ask(session, 'diagnostics {"settleMs": 0}', cwd)) as { error: { code: number } };
    assert.equal(answer.error.code, -32601);
  } finally {
    await session.stop();
  }
});
