// After Apply, the edited file is shown at its first changed line; other writes are not shown.
import "./installVscodeStub";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, test } from "node:test";
import type { PermissionOption } from "@agentclientprotocol/sdk";
import { firstChangedLine } from "../src/changedLine";
import { EditedFileRevealer, REVIEW_EXPIRES_MS } from "../src/editedFileReveal";
import { VscodeFsHandler } from "../src/fsHandler";
import { PROPOSAL_SCHEME, ProposalProvider, VscodePermissionPrompter } from "../src/permissionPrompt";
import { stub, TextEditorRevealType, workspace } from "./vscodeStub";

beforeEach(() => stub.reset());

const workspaceDir = (): string => mkdtempSync(join(tmpdir(), "heron-edited-"));

/** Where each shown document's cursor was put and which line was revealed, and how. */
function shown(): { path: string; selection: number; revealed: number | undefined; type: unknown; preserveFocus: unknown }[] {
  return stub.shownDocuments.map((d) => {
    const options = d.options as { selection: { start: { line: number } }; preserveFocus?: boolean };
    return {
      path: d.uri.fsPath,
      selection: options.selection.start.line,
      revealed: d.revealed[0]?.range.start.line,
      type: d.revealed[0]?.type,
      preserveFocus: options.preserveFocus,
    };
  });
}

function revealer(enabled = true, now: () => number = Date.now, log: string[] = []): EditedFileRevealer {
  return new EditedFileRevealer({ enabled: () => enabled, log: (m) => log.push(m), now });
}

test("firstChangedLine: the first line that differs, 0-based, within the new text", () => {
  assert.equal(firstChangedLine("a\nb\nc\n", "a\nB\nc\n"), 1);
  assert.equal(firstChangedLine("a\nb\n", "a\nb\nc\n"), 2, "lines added at the end");
  assert.equal(firstChangedLine("a\nb", "a\nbc"), 1, "a change to a last line without newline");
  assert.equal(firstChangedLine("a\nb\nc\nd", "a\nb"), 1, "lines removed at the end: the last line left");
  assert.equal(firstChangedLine("a\nb\nc\n", "a\nc\n"), 1, "a line removed in the middle");
  assert.equal(firstChangedLine("", "x\ny\n"), 0, "a new file");
  assert.equal(firstChangedLine("", "\n\nx"), 0, "a new file starting with blank lines");
  assert.equal(firstChangedLine("same\n", "same\n"), 0, "unchanged");
  assert.equal(firstChangedLine("a\r\nb\r\n", "a\r\nB\r\n"), 1, "CRLF lines");
  assert.equal(firstChangedLine("x\n", ""), 0, "emptied");
});

test("a write after an applied review opens the file at its first changed line, centred, focus kept", async () => {
  const path = join(workspaceDir(), "a.py");
  writeFileSync(path, "one\ntwo\nthree\n");
  const edited = revealer();
  edited.reviewApplied(path);
  const before = "one\ntwo\nthree\n";
  writeFileSync(path, "one\n2\nthree\n");
  assert.equal(await edited.written({ path, before, after: "one\n2\nthree\n" }), true);
  assert.deepEqual(shown(), [{ path, selection: 1, revealed: 1, type: TextEditorRevealType.InCenter, preserveFocus: true }]);
  // The review is used up: a later write to the same file (nobody reviewed it) is not shown.
  assert.equal(await edited.written({ path, before: "one\n2\nthree\n", after: "x\n" }), false);
  assert.equal(stub.shownDocuments.length, 1);
});

test("writes without a review, with the setting off, or long after the review are not shown", async () => {
  const path = join(workspaceDir(), "b.txt");
  writeFileSync(path, "x\n");
  assert.equal(await revealer().written({ path, before: "", after: "x\n" }), false, "no review (accept-edits mode)");

  const off = revealer(false);
  off.reviewApplied(path);
  assert.equal(await off.written({ path, before: "", after: "x\n" }), false, "heron.showEditedFile is false");

  let now = 1_000;
  const late = revealer(true, () => now);
  late.reviewApplied(path);
  now += REVIEW_EXPIRES_MS + 1;
  assert.equal(await late.written({ path, before: "", after: "x\n" }), false, "the review's write never came");

  const other = revealer();
  other.reviewApplied(join(workspaceDir(), "reviewed.txt"));
  assert.equal(await other.written({ path, before: "", after: "x\n" }), false, "another file");
  assert.deepEqual(stub.shownDocuments, []);
});

test("the line is kept inside the saved document; a file that cannot be opened is logged, not thrown", async () => {
  const path = join(workspaceDir(), "c.txt");
  writeFileSync(path, "a\n");
  const edited = revealer();
  edited.reviewApplied(path);
  // The saved text (say, after format on save) is shorter than the write that was compared.
  assert.equal(await edited.written({ path, before: "a\n", after: "a\n\n\n\nb\n" }), true);
  assert.equal(shown()[0]?.selection, 1);

  const log: string[] = [];
  const missing = join(workspaceDir(), "gone.txt");
  const failing = revealer(true, Date.now, log);
  failing.reviewApplied(missing);
  assert.equal(await failing.written({ path: missing, before: "", after: "x" }), false);
  assert.match(log[0] ?? "", /could not show .*gone\.txt/);
});

const EDIT_OPTIONS: PermissionOption[] = [
  { optionId: "allow_once", name: "Allow", kind: "allow_once" },
  { optionId: "allow_always", name: "Allow all edits this session", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
];

test("hand-off: Apply in the review, then the agent's fs/write_text_file shows the file, a new one too", async () => {
  const dir = workspaceDir();
  const existing = join(dir, "m.py");
  writeFileSync(existing, "import os\n\ndef f():\n    return 1\n");
  const created = join(dir, "sub", "new.py");
  const edited = revealer();
  const proposals = new ProposalProvider();
  workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, proposals);
  const prompter = new VscodePermissionPrompter(proposals, (path) => edited.reviewApplied(path));
  const writes: Promise<boolean>[] = [];
  const fs = new VscodeFsHandler((write) => writes.push(edited.written(write)));
  const review = (path: string, oldText: string | null, newText: string) =>
    prompter.request(
      {
        sessionId: "s1",
        toolCall: { toolCallId: path, title: "Edit", content: [{ type: "diff", path, oldText, newText }] },
        options: EDIT_OPTIONS,
      },
      new AbortController().signal,
    );

  stub.ui.answerMessage = () => "Apply";
  const newText = "import os\n\ndef f():\n    return 2\n";
  await review(existing, "import os\n\ndef f():\n    return 1\n", newText);
  assert.equal(stub.tabs.length, 0, "the diff editor is closed");
  await fs.writeTextFile({ sessionId: "s1", path: existing, content: newText });

  stub.ui.answerMessage = () => "Allow all edits this session";
  await review(created, null, "print('hi')\n");
  await fs.writeTextFile({ sessionId: "s1", path: created, content: "print('hi')\n" });

  // After "allow all edits", Heron writes without asking: no review, no jump.
  await fs.writeTextFile({ sessionId: "s1", path: existing, content: "changed again\n" });

  stub.ui.answerMessage = () => "Reject";
  await review(existing, "changed again\n", "rejected\n");

  assert.deepEqual(await Promise.all(writes), [true, true, false]);
  assert.deepEqual(
    shown().map((s) => [s.path, s.selection, s.revealed]),
    [
      [existing, 3, 3],
      [created, 0, 0],
    ],
  );
});
