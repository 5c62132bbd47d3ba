// After the user applies a reviewed edit, the agent writes the file: show that file at the change.
//
// Only writes that follow an applied review are shown. Writes nobody reviewed (accept-edits and
// full-access modes, "allow all edits" after its first edit) leave the editors alone: the user did
// not ask to look at them, may be typing elsewhere, and the chat's cards link to each change.
import { normalize } from "node:path";
import * as vscode from "vscode";
import { firstChangedLine } from "./changedLine";

/** A write the fs handler has applied and saved: the text before it and the saved text. */
export interface AppliedWrite {
  path: string;
  before: string;
  after: string;
}

export interface EditedFileRevealOptions {
  /** The `heron.showEditedFile` setting, read at each write. */
  enabled: () => boolean;
  log: (message: string) => void;
  now?: () => number;
}

/** How long an applied review waits for its write: the agent writes at once, unless it failed. */
export const REVIEW_EXPIRES_MS = 60_000;

export class EditedFileRevealer {
  /** Normalized path -> when the applied review stops waiting for its write. */
  private readonly expected = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly options: EditedFileRevealOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The user applied a reviewed edit of `path`: the agent's next write to it is shown. */
  reviewApplied(path: string): void {
    this.expected.set(normalize(path), this.now() + REVIEW_EXPIRES_MS);
  }

  /** A write was applied and saved; shows the file when a review expected it. Never throws. */
  async written(write: AppliedWrite): Promise<boolean> {
    const key = normalize(write.path);
    const expires = this.expected.get(key);
    if (expires === undefined) return false;
    this.expected.delete(key);
    if (this.now() > expires || !this.options.enabled()) return false;
    try {
      await this.reveal(write);
      return true;
    } catch (err) {
      this.options.log(`could not show ${write.path}: ${err instanceof Error ? err.message : String(err)}`);
      return false;
    }
  }

  /** Opens the file (focus stays where it is) with the cursor on the first changed line, centred. */
  private async reveal(write: AppliedWrite): Promise<void> {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(write.path));
    const line = Math.min(firstChangedLine(write.before, write.after), Math.max(0, document.lineCount - 1));
    const position = new vscode.Position(line, 0);
    const at = new vscode.Range(position, position);
    const editor = await vscode.window.showTextDocument(document, { preserveFocus: true, selection: at });
    editor.revealRange(at, vscode.TextEditorRevealType.InCenter);
  }
}
