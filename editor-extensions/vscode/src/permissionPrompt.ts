// session/request_permission: edits are reviewed in a diff editor with a modal question;
// anything else is a quick pick of the agent's options. Labels come from ./permissions.
import { stat } from "node:fs/promises";
import * as vscode from "vscode";
import type { RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import { diffChoices, diffCount, findDiff, isAllowed, outcomeFor, plainChoices, reviewDetail, type PermissionChoice } from "./permissions";
import type { PermissionPrompter } from "./session";

export const PROPOSAL_SCHEME = "heron-proposal";

/** Serves the proposed (and, for new files, the original) text as read-only virtual documents. */
export class ProposalProvider implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private counter = 0;

  add(path: string, text: string, label: string): vscode.Uri {
    this.counter += 1;
    const uri = vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path, query: `${label}-${this.counter}` });
    this.texts.set(uri.toString(), text);
    return uri;
  }

  remove(uri: vscode.Uri): void {
    this.texts.delete(uri.toString());
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

const ABORTED = Symbol("aborted");

/** The user's answer (undefined: dismissed), or "aborted" when `signal` aborts first. */
function untilAborted<T>(promise: Thenable<T | undefined>, signal: AbortSignal): Promise<T | undefined | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve) => {
    const onAbort = (): void => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(signal.aborted ? ABORTED : value);
      },
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve(signal.aborted ? ABORTED : undefined);
      },
    );
  });
}

/** Dismissed (Escape, the dialog's Cancel): a "no", not a cancelled turn. Aborted: cancelled. */
function answer(picked: string | undefined | typeof ABORTED, choices: readonly PermissionChoice[]): RequestPermissionResponse {
  if (picked === ABORTED) return { outcome: { outcome: "cancelled" } };
  return outcomeFor(picked, choices);
}

export class VscodePermissionPrompter implements PermissionPrompter {
  /** `onApplied`: told the file's path when the user applies a reviewed edit, before the agent hears. */
  constructor(
    private readonly proposals: ProposalProvider,
    private readonly onApplied?: (path: string) => void,
  ) {}

  async request(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse> {
    const title = params.toolCall.title ?? "Heron wants to run a tool";
    const diff = findDiff(params.toolCall);
    if (!diff) {
      const choices = plainChoices(params.options);
      const picked = await untilAborted(
        vscode.window.showQuickPick(
          choices.map(({ label, description }) => ({ label, description })),
          { title: `Heron: ${title}`, placeHolder: "Allow this?", ignoreFocusOut: true },
        ),
        signal,
      );
      return answer(picked === ABORTED ? ABORTED : picked?.label, choices);
    }

    // Left: the current content (the live document when the file exists); right: the proposal.
    const created: vscode.Uri[] = [];
    const current = (await isFile(diff.path))
      ? vscode.Uri.file(diff.path)
      : this.proposals.add(diff.path, diff.oldText ?? "", "current");
    if (current.scheme === PROPOSAL_SCHEME) created.push(current);
    const proposed = this.proposals.add(diff.path, diff.newText, "proposed");
    created.push(proposed);
    const name = diff.path.split(/[\\/]/).pop() ?? diff.path;
    try {
      await vscode.commands.executeCommand("vscode.diff", current, proposed, `${name}: Heron's proposed edit`, {
        preview: true,
      });
      const choices = diffChoices(params.options);
      // Modal: it cannot be missed or hidden behind the diff editor. Its own Cancel (or Escape)
      // resolves undefined, which answers the agent's reject option.
      const picked = await untilAborted(
        vscode.window.showInformationMessage(
          `Heron: ${title}`,
          { modal: true, detail: reviewDetail(vscode.workspace.asRelativePath(diff.path), diffCount(params.toolCall)) },
          ...choices.map((c) => c.label),
        ),
        signal,
      );
      const response = answer(picked, choices);
      if (isAllowed(response, choices)) this.onApplied?.(diff.path);
      return response;
    } finally {
      await closeDiffOf(proposed);
      for (const uri of created) this.proposals.remove(uri);
    }
  }
}

/** The review is over (answered, dismissed or cancelled): its diff editor goes too. */
async function closeDiffOf(proposed: vscode.Uri): Promise<void> {
  const tabs = vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .filter((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === proposed.toString());
  if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
}
