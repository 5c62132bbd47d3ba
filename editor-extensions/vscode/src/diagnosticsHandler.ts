// `_heron/diagnostics` answered from VS Code's own diagnostics (what its language extensions
// report), after giving them time to catch up with a file Heron has just written.
import * as vscode from "vscode";
import {
  isInside,
  toWireDiagnostic,
  toWireFiles,
  type DiagnosticsHandler,
  type DiagnosticsParams,
  type DiagnosticsResult,
} from "./diagnostics";

/** After the awaited diagnostics arrive, how long no further change is waited for. */
const QUIET_MS = 100;

type Waiter = (changed: readonly string[]) => void;

export class VscodeDiagnosticsHandler implements DiagnosticsHandler, vscode.Disposable {
  /** Event order: when each file's text, and its diagnostics, last changed. */
  private tick = 0;
  private readonly textChanged = new Map<string, number>();
  private readonly diagnosticsChanged = new Map<string, number>();
  private readonly waiters = new Set<Waiter>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly quietMs = QUIET_MS) {
    this.subscriptions = [
      vscode.workspace.onDidChangeTextDocument((event) => {
        // A save or an undo to the saved state changes only the dirty flag: no new text.
        if (event.contentChanges.length > 0) this.textChanged.set(event.document.uri.toString(), ++this.tick);
      }),
      vscode.languages.onDidChangeDiagnostics((event) => {
        const changed = event.uris.map((uri) => uri.toString());
        for (const key of changed) this.diagnosticsChanged.set(key, ++this.tick);
        for (const waiter of [...this.waiters]) waiter(changed);
      }),
    ];
  }

  async diagnostics(params: DiagnosticsParams, roots: readonly string[], signal: AbortSignal): Promise<DiagnosticsResult> {
    if (params.paths === undefined) return { files: toWireFiles(vscode.languages.getDiagnostics(), roots) };
    const answered = params.paths.filter((path) => isInside(path, roots));
    await this.settle(
      answered.map((path) => vscode.Uri.file(path).toString()),
      params.settleMs,
      signal,
    );
    return {
      files: params.paths.map((path) => ({
        path,
        diagnostics: answered.includes(path)
          ? vscode.languages.getDiagnostics(vscode.Uri.file(path)).map(toWireDiagnostic)
          : [],
      })),
    };
  }

  /**
   * Resolves once every file whose diagnostics are older than its text has new diagnostics and
   * then none changed for the quiet period, or after `settleMs`, or on `signal`: whichever first.
   */
  private settle(keys: readonly string[], settleMs: number, signal: AbortSignal): Promise<void> {
    const behind = new Set(keys.filter((key) => this.isBehind(key)));
    if (settleMs <= 0 || behind.size === 0 || signal.aborted) return Promise.resolve();
    const wanted = new Set(keys);
    return new Promise((resolve) => {
      let quiet: NodeJS.Timeout | undefined;
      const done = (): void => {
        clearTimeout(deadline);
        clearTimeout(quiet);
        this.waiters.delete(waiter);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const waiter: Waiter = (changed) => {
        if (!changed.some((key) => wanted.has(key))) return;
        for (const key of changed) behind.delete(key);
        if (behind.size > 0) return;
        clearTimeout(quiet);
        quiet = setTimeout(done, this.quietMs);
      };
      const deadline = setTimeout(done, settleMs);
      this.waiters.add(waiter);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  /** Its diagnostics are not known to be newer than its text (as when the text was never seen). */
  private isBehind(key: string): boolean {
    const text = this.textChanged.get(key);
    const diagnostics = this.diagnosticsChanged.get(key);
    return text === undefined || diagnostics === undefined || diagnostics < text;
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.waiters.clear();
  }
}
