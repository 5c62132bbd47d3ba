// Maps ACP permission options to the buttons shown to the user. Pure: no vscode.
//
// A label says what the answer does. The agent's option name is used when it says more than a
// bare yes/no ("Allow all edits this session", "Always allow `git status` here"); a generic name
// ("Always", "Allow once", "Deny") is replaced by a label built from the option's kind.
import type {
  Diff,
  PermissionOption,
  PermissionOptionKind,
  RequestPermissionResponse,
  ToolCallUpdate,
} from "@agentclientprotocol/sdk";

export interface PermissionChoice {
  label: string;
  /** Quick pick only: the answer's scope (once / always) when the label does not say it. */
  description?: string;
  optionId: string;
  kind: PermissionOptionKind;
}

/** Words that only say yes or no, once or always: a name made of these alone names nothing. */
const DECISION_WORDS = new Set([
  "allow", "allowed", "always", "once", "only", "reject", "deny", "never", "yes", "no", "ok", "okay",
  "apply", "accept", "approve", "decline", "cancel", "skip", "this", "time", "just", "and", "all",
  "dont", "don't", "not", "do",
]);

/** Whether `name` is a bare decision ("Allow", "Always allow", "No"), saying nothing of its object. */
export function isGenericName(name: string): boolean {
  const words = name.toLowerCase().match(/[a-z']+/g) ?? [];
  return words.every((word) => DECISION_WORDS.has(word));
}

/** Edit review buttons for options whose names are generic. */
const EDIT_LABELS: Record<PermissionOptionKind, string> = {
  allow_once: "Apply",
  allow_always: "Always allow edits",
  reject_once: "Reject",
  reject_always: "Always reject edits",
};

/** Quick pick labels for options without a name. */
const PLAIN_LABELS: Record<PermissionOptionKind, string> = {
  allow_once: "Allow",
  allow_always: "Always allow",
  reject_once: "Reject",
  reject_always: "Always reject",
};

const SCOPES: Record<PermissionOptionKind, string> = {
  allow_once: "once: only this request",
  allow_always: "always: not asked again",
  reject_once: "once: only this request",
  reject_always: "always: rejected without asking",
};

/** Words by which a name already states how long the answer holds. */
const SCOPE_WORDS = /\b(always|never|once|again|session|forever|permanently|every|all)\b|this time|from now on/i;

const isAlways = (kind: PermissionOptionKind): boolean => kind === "allow_always" || kind === "reject_always";

/** Buttons for an edit with a diff, in the agent's order; e.g. Apply / Allow all edits this session / Reject. */
export function diffChoices(options: readonly PermissionOption[]): PermissionChoice[] {
  const labels = unique(options.map((o) => (isGenericName(o.name) ? EDIT_LABELS[o.kind] : o.name.trim())), options);
  return options.map((option, i) => ({ label: labels[i] ?? option.name, optionId: option.optionId, kind: option.kind }));
}

/**
 * Quick-pick entries for any other permission request: the agent's own names, with the scope as
 * a description when the agent offers a choice of scope and the name does not state it.
 */
export function plainChoices(options: readonly PermissionOption[]): PermissionChoice[] {
  const labels = unique(options.map((o) => o.name.trim() || PLAIN_LABELS[o.kind]), options);
  const scoped = options.some((o) => isAlways(o.kind));
  return options.map((option, i) => {
    const label = labels[i] ?? option.name;
    const choice: PermissionChoice = { label, optionId: option.optionId, kind: option.kind };
    if (scoped && !SCOPE_WORDS.test(label)) choice.description = SCOPES[option.kind];
    return choice;
  });
}

/**
 * Labels made distinct: a repeated one becomes the option's own name when that is free, else
 * gets a number ("Apply (2)"). Answers are matched by label, so two must never be equal.
 */
function unique(labels: readonly string[], options: readonly PermissionOption[]): string[] {
  const used = new Set<string>();
  return labels.map((label, i) => {
    let chosen = label;
    const name = options[i]?.name.trim() ?? "";
    if (used.has(chosen) && name && !used.has(name)) chosen = name;
    for (let n = 2; used.has(chosen); n++) chosen = `${label} (${n})`;
    used.add(chosen);
    return chosen;
  });
}

/**
 * The response for the label the user picked. `undefined` (the question was dismissed) is a
 * "no": the agent's `reject_once` option when it offers one, otherwise `cancelled`.
 */
export function outcomeFor(
  label: string | undefined,
  choices: readonly PermissionChoice[],
): RequestPermissionResponse {
  const choice =
    label === undefined ? choices.find((c) => c.kind === "reject_once") : choices.find((c) => c.label === label);
  if (!choice) return { outcome: { outcome: "cancelled" } };
  return { outcome: { outcome: "selected", optionId: choice.optionId } };
}

/** Whether the response applies the change: one of the agent's allow options was chosen. */
export function isAllowed(response: RequestPermissionResponse, choices: readonly PermissionChoice[]): boolean {
  const { outcome } = response;
  if (outcome.outcome !== "selected") return false;
  const kind = choices.find((c) => c.optionId === outcome.optionId)?.kind;
  return kind === "allow_once" || kind === "allow_always";
}

/** The first diff on the tool call, if the request is about an edit. */
export function findDiff(toolCall: ToolCallUpdate): Diff | undefined {
  for (const content of toolCall.content ?? []) {
    if (content.type === "diff") {
      return { path: content.path, oldText: content.oldText ?? null, newText: content.newText };
    }
  }
  return undefined;
}

/** How many files the tool call's diffs change (a restore may change several). */
export function diffCount(toolCall: ToolCallUpdate): number {
  return (toolCall.content ?? []).filter((content) => content.type === "diff").length;
}

/** What the review dialog says: the diff editor shows the first file; the chat's card shows them all. */
export function reviewDetail(path: string, files: number): string {
  const first = `Review the proposed edit to ${path} in the diff editor.`;
  return files > 1 ? `${first} It changes ${files} files: the chat's card shows each one's diff.` : first;
}
