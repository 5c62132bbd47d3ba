// A status bar item showing what the Heron session is doing.
import * as vscode from "vscode";
import type { SessionState } from "./session";

const LOOK: Record<SessionState, { text: string; tooltip: string }> = {
  stopped: { text: "$(circle-outline) Heron", tooltip: "Heron is not running" },
  starting: { text: "$(loading~spin) Heron: starting", tooltip: "Starting heron acp" },
  ready: { text: "$(check) Heron: ready", tooltip: "Heron is ready" },
  working: { text: "$(sync~spin) Heron: working", tooltip: "Heron is working on your prompt" },
  waiting: { text: "$(question) Heron: approval needed", tooltip: "Heron is waiting for your approval" },
  error: { text: "$(error) Heron: error", tooltip: "Heron stopped with an error" },
};

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);

  constructor() {
    this.item.command = "heron.showLog";
    this.show("stopped");
    this.item.show();
  }

  show(state: SessionState, detail?: string, mode?: string | null): void {
    const look = LOOK[state];
    // A mode belongs to a live session: not shown once the agent has stopped.
    const live = state !== "error" && state !== "stopped";
    this.item.text = mode && live ? `${look.text} (${mode})` : look.text;
    this.item.tooltip = detail ? `${look.tooltip}: ${detail}` : look.tooltip;
  }

  dispose(): void {
    this.item.dispose();
  }
}
