// The labels of approval answers: Heron's real option sets, and the generic names other agents use.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { PermissionOption, PermissionOptionKind } from "@agentclientprotocol/sdk";
import { diffChoices, isAllowed, isGenericName, plainChoices } from "../src/permissions";

const option = (kind: PermissionOptionKind, name: string, optionId: string = kind): PermissionOption => ({ optionId, name, kind });
const labels = (choices: { label: string }[]): string[] => choices.map((c) => c.label);
const described = (choices: { label: string; description?: string }[]): [string, string | undefined][] =>
  choices.map((c) => [c.label, c.description]);

/** agent_core/approval/permissions.py `options_for`, for an edit that can be remembered. */
const HERON_EDIT = [
  option("allow_once", "Allow"),
  option("allow_always", "Allow all edits this session"),
  option("reject_once", "Reject"),
  option("reject_always", "Reject all edits this session"),
];
/** The same for a command with a known prefix. */
const HERON_COMMAND = [
  option("allow_once", "Allow"),
  option("allow_always", "Always allow `git status` here"),
  option("reject_once", "Reject"),
  option("reject_always", "Always reject `git status` here"),
];

test("Heron's edit options: Apply, the agent's own 'all edits this session' names, Reject", () => {
  assert.deepEqual(labels(diffChoices(HERON_EDIT)), [
    "Apply",
    "Allow all edits this session",
    "Reject",
    "Reject all edits this session",
  ]);
  assert.deepEqual(
    diffChoices(HERON_EDIT).map((c) => c.optionId),
    ["allow_once", "allow_always", "reject_once", "reject_always"],
  );
  // An edit that cannot be remembered (outside the workspace, protected): once only.
  assert.deepEqual(labels(diffChoices(HERON_EDIT.filter((_o, i) => i % 2 === 0))), ["Apply", "Reject"]);
});

test("Heron's command options: the agent's names, the scope said only where the name does not", () => {
  assert.deepEqual(described(plainChoices(HERON_COMMAND)), [
    ["Allow", "once: only this request"],
    ["Always allow `git status` here", undefined],
    ["Reject", "once: only this request"],
    ["Always reject `git status` here", undefined],
  ]);
  // No "always" on offer (a dangerous command, a mode switch): nothing to tell apart.
  assert.deepEqual(described(plainChoices([option("allow_once", "Allow"), option("reject_once", "Reject")])), [
    ["Allow", undefined],
    ["Reject", undefined],
  ]);
});

test("Heron's other questions keep their names: a checkpoint restore, a multiple-choice question", () => {
  const restore = [option("allow_once", "Restore these files", "restore"), option("reject_once", "Cancel", "cancel")];
  // "Cancel" would sit beside the modal's own Cancel button: it is the plain "no".
  assert.deepEqual(labels(diffChoices(restore)), ["Restore these files", "Reject"]);
  const question = [
    option("allow_once", "Python", "choice-0"),
    option("allow_once", "TypeScript", "choice-1"),
    option("reject_once", "Skip", "skip"),
  ];
  assert.deepEqual(described(plainChoices(question)), [
    ["Python", undefined],
    ["TypeScript", undefined],
    ["Skip", undefined],
  ]);
});

test("generic names from other agents become labels that say what they apply to", () => {
  const generic = [
    option("allow_once", "Allow once"),
    option("allow_always", "Always"),
    option("reject_once", "Deny"),
    option("reject_always", "Never"),
  ];
  assert.deepEqual(labels(diffChoices(generic)), ["Apply", "Always allow edits", "Reject", "Always reject edits"]);
  assert.deepEqual(described(plainChoices(generic)), [
    ["Allow once", undefined],
    ["Always", undefined],
    ["Deny", "once: only this request"],
    ["Never", undefined],
  ]);
  const claudeLike = [option("allow_always", "Always Allow"), option("allow_once", "Allow"), option("reject_once", "Reject")];
  assert.deepEqual(labels(diffChoices(claudeLike)), ["Always allow edits", "Apply", "Reject"]);
  const yesNo = [
    option("allow_once", "Yes"),
    option("allow_always", "Yes, and don't ask again for this command"),
    option("reject_once", "No, and tell the agent what to do differently"),
  ];
  assert.deepEqual(described(plainChoices(yesNo)), [
    ["Yes", "once: only this request"],
    ["Yes, and don't ask again for this command", undefined],
    ["No, and tell the agent what to do differently", "once: only this request"],
  ]);
  assert.deepEqual(labels(diffChoices(yesNo)), [
    "Apply",
    "Yes, and don't ask again for this command",
    "No, and tell the agent what to do differently",
  ]);
});

test("a generic name is one made of decision words only", () => {
  for (const name of ["Allow", "Always allow", "Allow Always", "Yes, always", "No", "Reject once", "Don't allow", "", "  "]) {
    assert.equal(isGenericName(name), true, name);
  }
  for (const name of ["Allow all edits this session", "Always allow `ls` here", "Restore these files", "Python"]) {
    assert.equal(isGenericName(name), false, name);
  }
});

test("labels stay unique, so an answer always names one option", () => {
  const twoYes = [option("allow_once", "Allow", "a"), option("allow_once", "Yes", "b"), option("reject_once", "No", "c")];
  assert.deepEqual(labels(diffChoices(twoYes)), ["Apply", "Yes", "Reject"]);
  const nameless = [option("allow_once", "", "a"), option("allow_once", "", "b"), option("allow_always", "", "c")];
  assert.deepEqual(labels(diffChoices(nameless)), ["Apply", "Apply (2)", "Always allow edits"]);
  assert.deepEqual(labels(plainChoices(nameless)), ["Allow", "Allow (2)", "Always allow"]);
  const same = [option("allow_once", "OK", "a"), option("reject_once", "OK", "b")];
  assert.deepEqual(labels(plainChoices(same)), ["OK", "OK (2)"]);
});

test("only an allow option applies the change", () => {
  const choices = diffChoices(HERON_EDIT);
  const selected = (optionId: string) => ({ outcome: { outcome: "selected" as const, optionId } });
  assert.equal(isAllowed(selected("allow_once"), choices), true);
  assert.equal(isAllowed(selected("allow_always"), choices), true);
  assert.equal(isAllowed(selected("reject_once"), choices), false);
  assert.equal(isAllowed(selected("reject_always"), choices), false);
  assert.equal(isAllowed(selected("unknown"), choices), false);
  assert.equal(isAllowed({ outcome: { outcome: "cancelled" } }, choices), false);
});
