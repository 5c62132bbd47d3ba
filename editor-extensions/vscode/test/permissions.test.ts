import "./installVscodeStub";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, test } from "node:test";
import type { PermissionOption, RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { PROPOSAL_SCHEME, ProposalProvider, VscodePermissionPrompter } from "../src/permissionPrompt";
import { diffChoices, diffCount, outcomeFor, reviewDetail } from "../src/permissions";
import { stub, Uri, workspace } from "./vscodeStub";

const OPTIONS: PermissionOption[] = [
  { optionId: "yes", name: "Allow", kind: "allow_once" },
  { optionId: "always", name: "Always allow", kind: "allow_always" },
  { optionId: "no", name: "Reject", kind: "reject_once" },
];

function editRequest(path: string, oldText: string | null, newText: string): RequestPermissionRequest {
  return {
    sessionId: "s1",
    toolCall: { toolCallId: "c1", title: "Edit a.txt", content: [{ type: "diff", path, oldText, newText }] },
    options: OPTIONS,
  };
}

function prompter(onApplied?: (path: string) => void): VscodePermissionPrompter {
  const proposals = new ProposalProvider();
  workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, proposals);
  return new VscodePermissionPrompter(proposals, onApplied);
}

beforeEach(() => stub.reset());

test("generic option names map to Apply / Always allow edits / Reject; dismissing is the reject option", () => {
  const choices = diffChoices(OPTIONS);
  assert.deepEqual(
    choices.map((c) => [c.label, c.optionId]),
    [
      ["Apply", "yes"],
      ["Always allow edits", "always"],
      ["Reject", "no"],
    ],
  );
  assert.deepEqual(outcomeFor("Reject", choices), { outcome: { outcome: "selected", optionId: "no" } });
  assert.deepEqual(outcomeFor(undefined, choices), { outcome: { outcome: "selected", optionId: "no" } });
  assert.deepEqual(outcomeFor(undefined, choices.slice(0, 2)), { outcome: { outcome: "cancelled" } });
});

test("Apply opens vscode.diff (current file vs proposal) and returns the allow option", async () => {
  const dir = mkdtempSync(join(tmpdir(), "heron-perm-"));
  const path = join(dir, "a.txt");
  writeFileSync(path, "old\n");
  let proposedWhenAsked: string | undefined;
  stub.ui.answerMessage = (_message, items) => {
    const diff = stub.executed.find((e) => e.command === "vscode.diff");
    proposedWhenAsked = diff ? stub.virtualText(diff.args[1] as Uri) : undefined;
    assert.deepEqual(items, ["Apply", "Always allow edits", "Reject"]);
    return "Apply";
  };
  const response = await prompter().request(editRequest(path, "old\n", "new\n"), new AbortController().signal);
  assert.deepEqual(response, { outcome: { outcome: "selected", optionId: "yes" } });
  const diffs = stub.executed.filter((e) => e.command === "vscode.diff");
  assert.equal(diffs.length, 1);
  const [left, right] = diffs[0]?.args as [Uri, Uri];
  assert.equal(left.toString(), Uri.file(path).toString(), "left side is the real file");
  assert.equal(right.scheme, PROPOSAL_SCHEME);
  assert.equal(right.path, path);
  assert.equal(proposedWhenAsked, "new\n", "the proposal was served while the user decided");
  assert.equal(stub.tabs.length, 0, "the diff editor closes once answered");
  assert.equal(stub.messages[0]?.message, "Heron: Edit a.txt");
});

test("Reject returns the reject option; a new file diffs against a virtual empty document", async () => {
  const path = join(mkdtempSync(join(tmpdir(), "heron-perm-")), "new.txt");
  let leftText: string | undefined;
  stub.ui.answerMessage = () => {
    const diff = stub.executed.find((e) => e.command === "vscode.diff");
    leftText = stub.virtualText(diff?.args[0] as Uri);
    return "Reject";
  };
  const response = await prompter().request(editRequest(path, null, "hello\n"), new AbortController().signal);
  assert.deepEqual(response, { outcome: { outcome: "selected", optionId: "no" } });
  assert.equal(leftText, "");
});

test("the edit question is a modal dialog naming the file as the workspace knows it", async () => {
  const root = mkdtempSync(join(tmpdir(), "heron-perm-"));
  const path = join(root, "src", "m.txt");
  stub.workspaceFolders = [{ uri: Uri.file(root) }];
  stub.ui.answerMessage = () => "Apply";
  await prompter().request(editRequest(path, null, "x"), new AbortController().signal);
  const [message] = stub.messages;
  assert.ok(message);
  assert.equal(message.options.modal, true);
  assert.ok(message.options.detail?.includes(" src/m.txt "), message.options.detail);
});

test("dismissing the question (Escape, the dialog's Cancel) answers the reject option", async () => {
  const path = join(mkdtempSync(join(tmpdir(), "heron-perm-")), "x.txt");
  const dismissed = await prompter().request(editRequest(path, null, "x"), new AbortController().signal);
  assert.deepEqual(dismissed, { outcome: { outcome: "selected", optionId: "no" } });
  assert.equal(stub.tabs.length, 0);

  // Without a reject_once option there is no "no" to give: cancelled.
  const noReject = { ...editRequest(path, null, "x"), options: OPTIONS.filter((o) => o.kind !== "reject_once") };
  const cancelled = await prompter().request(noReject, new AbortController().signal);
  assert.deepEqual(cancelled, { outcome: { outcome: "cancelled" } });

  // The same for a quick pick dismissed with Escape.
  const command = await prompter().request(
    { sessionId: "s1", toolCall: { toolCallId: "c3", title: "Run ls" }, options: OPTIONS },
    new AbortController().signal,
  );
  assert.deepEqual(command, { outcome: { outcome: "selected", optionId: "no" } });
});

test("a turn cancelled before the question answers cancelled", async () => {
  const path = join(mkdtempSync(join(tmpdir(), "heron-perm-")), "x.txt");
  const abort = new AbortController();
  abort.abort();
  stub.ui.answerMessage = () => "Apply";
  const cancelled = await prompter().request(editRequest(path, null, "x"), abort.signal);
  assert.deepEqual(cancelled, { outcome: { outcome: "cancelled" } });
});

test("a turn cancelled while the question is open answers cancelled and closes the diff", async () => {
  const path = join(mkdtempSync(join(tmpdir(), "heron-perm-")), "x.txt");
  const abort = new AbortController();
  const asked = { yes: false };
  stub.ui.answerMessage = () => {
    asked.yes = true;
    return new Promise<string | undefined>(() => undefined); // the user never answers
  };
  const pending = prompter().request(editRequest(path, null, "x"), abort.signal);
  const deadline = Date.now() + 5000; // the request stats the file first: real I/O, not a tick
  while (!asked.yes && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  assert.ok(asked.yes, "the question is open");
  assert.equal(stub.tabs.length, 1, "the diff is open while the question is");
  abort.abort();
  assert.deepEqual(await pending, { outcome: { outcome: "cancelled" } });
  assert.equal(stub.tabs.length, 0, "the diff editor closes on cancel");
});

test("a request without a diff is a quick pick of the agent's option names", async () => {
  stub.ui.answerQuickPick = (items) => items.find((i) => i === "Always allow");
  const response = await prompter().request(
    { sessionId: "s1", toolCall: { toolCallId: "c2", title: "Run ls" }, options: OPTIONS },
    new AbortController().signal,
  );
  assert.deepEqual(stub.quickPicks, [["Allow", "Always allow", "Reject"]]);
  assert.deepEqual(response, { outcome: { outcome: "selected", optionId: "always" } });
  assert.equal(stub.executed.length, 0, "no diff editor for a command");
});

test("the quick pick says the scope of each answer whose name does not", async () => {
  const options: PermissionOption[] = [
    { optionId: "allow_once", name: "Allow", kind: "allow_once" },
    { optionId: "allow_always", name: "Always allow `git status` here", kind: "allow_always" },
    { optionId: "reject_once", name: "Reject", kind: "reject_once" },
    { optionId: "reject_always", name: "Always reject `git status` here", kind: "reject_always" },
  ];
  stub.ui.answerQuickPick = (labels) => labels[1];
  const response = await prompter().request(
    { sessionId: "s1", toolCall: { toolCallId: "c4", title: "Run git status" }, options },
    new AbortController().signal,
  );
  assert.deepEqual(response, { outcome: { outcome: "selected", optionId: "allow_always" } });
  assert.deepEqual(stub.quickPickItems[0], [
    { label: "Allow", description: "once: only this request" },
    { label: "Always allow `git status` here", description: undefined },
    { label: "Reject", description: "once: only this request" },
    { label: "Always reject `git status` here", description: undefined },
  ]);
});

test("applying a reviewed edit (once or always) reports its path; rejecting, dismissing or cancelling does not", async () => {
  const path = join(mkdtempSync(join(tmpdir(), "heron-perm-")), "x.txt");
  const applied: string[] = [];
  const ask = (answer: string | undefined, signal = new AbortController().signal): Promise<unknown> => {
    stub.ui.answerMessage = () => answer;
    return prompter((p) => applied.push(p)).request(editRequest(path, null, "x"), signal);
  };
  await ask("Reject");
  await ask(undefined);
  const aborted = new AbortController();
  aborted.abort();
  await ask("Apply", aborted.signal);
  assert.deepEqual(applied, []);
  await ask("Apply");
  await ask("Always allow edits");
  assert.deepEqual(applied, [path, path]);
});

test("the review dialog says when the diff editor shows one of several files (a restore)", () => {
  const diff = (path: string) => ({ type: "diff" as const, path, oldText: "a\n", newText: "b\n" });
  const restore = { toolCallId: "restore-1", title: "Restore the workspace to checkpoint 2", content: [diff("/w/a.py"), diff("/w/b.py"), { type: "content" as const, content: { type: "text" as const, text: "restore a.py, b.py" } }] };
  assert.equal(diffCount(restore), 2);
  assert.equal(diffCount({ toolCallId: "t" }), 0);
  assert.equal(reviewDetail("a.py", 1), "Review the proposed edit to a.py in the diff editor.");
  assert.equal(reviewDetail("a.py", 2), "Review the proposed edit to a.py in the diff editor. It changes 2 files: the chat's card shows each one's diff.");
});
