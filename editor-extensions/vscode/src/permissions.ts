// Maps ACP permission options to the buttons shown to the user. Pure: no vscode.
import type {
  Diff,
  PermissionOption,
  PermissionOptionKind,
  RequestPermissionResponse,
  ToolCallUpdate,
} from "@agentclientprotocol/sdk";

export interface PermissionChoice {
  label: string;
  optionId: string;
  kind: PermissionOptionKind;
}

const DIFF_LABELS: Record<PermissionOptionKind, string> = {
  allow_once: "Apply",
  allow_always: "Always",
  reject_once: "Reject",
  reject_always: "Never",
};

/** Buttons for an edit with a diff: Apply / Always / Reject / Never, in the agent's order. */
export function diffChoices(options: readonly PermissionOption[]): PermissionChoice[] {
  const used = new Set<string>();
  return options.map((option) => {
    let label = DIFF_LABELS[option.kind];
    if (used.has(label)) label = `${label}: ${option.name}`;
    used.add(label);
    return { label, optionId: option.optionId, kind: option.kind };
  });
}

/** Quick-pick entries for any other permission request: the agent's own names. */
export function plainChoices(options: readonly PermissionOption[]): PermissionChoice[] {
  return options.map((o) => ({ label: o.name, optionId: o.optionId, kind: o.kind }));
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

/** The first diff on the tool call, if the request is about an edit. */
export function findDiff(toolCall: ToolCallUpdate): Diff | undefined {
  for (const content of toolCall.content ?? []) {
    if (content.type === "diff") {
      return { path: content.path, oldText: content.oldText ?? null, newText: content.newText };
    }
  }
  return undefined;
}
