import "./installVscodeStub";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, test } from "node:test";
import { VscodeFsHandler } from "../src/fsHandler";
import { OutputBuffer, sliceLines } from "../src/text";
import { stub, TextDocument, Uri } from "./vscodeStub";

beforeEach(() => stub.reset());

const workspaceDir = (): string => mkdtempSync(join(tmpdir(), "heron-fs-"));

test("sliceLines: 1-based line and limit, line endings kept", () => {
  const text = "a\nb\nc\nd";
  assert.equal(sliceLines(text), text);
  assert.equal(sliceLines(text, 2), "b\nc\nd");
  assert.equal(sliceLines(text, 2, 2), "b\nc\n");
  assert.equal(sliceLines(text, null, 1), "a\n");
  assert.equal(sliceLines(text, 9, 2), "");
});

test("reads an unsaved buffer before the file on disk", async () => {
  const path = join(workspaceDir(), "a.py");
  writeFileSync(path, "on disk\n");
  const fs = new VscodeFsHandler();
  assert.deepEqual(await fs.readTextFile({ sessionId: "s", path }), { content: "on disk\n" });
  stub.documents.push(new TextDocument(Uri.file(path), "l1\nunsaved l2\nl3\nl4\n"));
  assert.deepEqual(await fs.readTextFile({ sessionId: "s", path }), { content: "l1\nunsaved l2\nl3\nl4\n" });
  assert.deepEqual(await fs.readTextFile({ sessionId: "s", path, line: 2, limit: 2 }), { content: "unsaved l2\nl3\n" });
});

test("reading a missing file fails", async () => {
  await assert.rejects(new VscodeFsHandler().readTextFile({ sessionId: "s", path: join(workspaceDir(), "nope") }));
});

test("writes an existing file through a whole-document WorkspaceEdit, then saves", async () => {
  const path = join(workspaceDir(), "a.txt");
  writeFileSync(path, "one\ntwo\n");
  await new VscodeFsHandler().writeTextFile({ sessionId: "s", path, content: "three\n" });
  assert.equal(stub.appliedEdits.length, 1);
  const ops = stub.appliedEdits[0]?.ops ?? [];
  assert.equal(ops.length, 1);
  const op = ops[0];
  assert.ok(op?.kind === "replace");
  assert.equal(op.uri.fsPath, path);
  assert.deepEqual([op.range.start.line, op.range.start.character, op.range.end.line, op.range.end.character], [0, 0, 2, 0]);
  assert.equal(op.text, "three\n");
  assert.equal(readFileSync(path, "utf8"), "three\n");
  const document = stub.documents.find((d) => d.uri.fsPath === path);
  assert.ok(document);
  assert.equal(document.isDirty, false);
  assert.equal(document.saves, 1);
});

test("a write replaces the unsaved buffer content, not the disk content", async () => {
  const path = join(workspaceDir(), "b.txt");
  writeFileSync(path, "disk\n");
  stub.documents.push(new TextDocument(Uri.file(path), "buffer\nwith more\nlines"));
  await new VscodeFsHandler().writeTextFile({ sessionId: "s", path, content: "new" });
  const op = stub.appliedEdits[0]?.ops[0];
  assert.ok(op?.kind === "replace");
  assert.deepEqual([op.range.end.line, op.range.end.character], [2, 5]);
  assert.equal(readFileSync(path, "utf8"), "new");
});

test("writes a new file with createFile + insert", async () => {
  const path = join(workspaceDir(), "sub", "new.txt");
  await new VscodeFsHandler().writeTextFile({ sessionId: "s", path, content: "hello\n" });
  assert.deepEqual(
    stub.appliedEdits[0]?.ops.map((o) => o.kind),
    ["createFile", "insert"],
  );
  const create = stub.appliedEdits.at(0)?.ops[0];
  assert.ok(create?.kind === "createFile");
  assert.deepEqual(create.options, { overwrite: true });
  assert.ok(existsSync(path));
  assert.equal(readFileSync(path, "utf8"), "hello\n");
});

test("OutputBuffer keeps the newest bytes within the limit, on a character boundary", () => {
  const unlimited = new OutputBuffer(null);
  unlimited.append(Buffer.from("abc"));
  assert.equal(unlimited.text(), "abc");
  assert.equal(unlimited.truncated, false);
  const bytes = [Buffer.from("1234"), Buffer.from("é67")]; // é is 2 bytes: 8 bytes in all
  const five = new OutputBuffer(5);
  for (const b of bytes) five.append(b);
  assert.equal(five.truncated, true);
  assert.equal(five.text(), "4é67");
  const three = new OutputBuffer(3); // the cut falls inside é: skip its second byte
  for (const b of bytes) three.append(b);
  assert.equal(three.text(), "67");
});
