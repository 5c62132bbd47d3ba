// The chat webview view: shows the header, the transcript and the usage line, and carries what
// the user does there (prompts, Stop, the header's pickers) back to the extension.
import * as vscode from "vscode";
import { toHeaderView, type HeaderState } from "./header";
import { itemLabel, renderItem } from "./render";
import type { RewindSupport } from "./rewind";
import type { CommandView } from "./terminals";
import type { Item, Usage } from "./transcript";
import { toUsageView } from "./usage";
import { chatHtml, makeNonce } from "./webviewHtml";

export interface ChatActions {
  prompt(text: string): void;
  /** The Stop button, or Escape in the prompt box: cancels the running turn. */
  stop(): void;
  /** The session picker: a listed session's id, or "" for a new session. */
  selectSession(sessionId: string): void;
  /** A header picker: a config option (or the mode) set to one of its values. */
  setOption(configId: string, value: string): void;
  /** The view opened: the session list is asked for again. */
  refreshSessions(): void;
  /** A `file:` link clicked in the chat. */
  openFile(href: string): void;
  /** A subagent's tool calls shown or hidden in the chat (`id`: the tool call's item id). */
  toggleTool(id: string, expanded: boolean): void;
  /** The Stop button of a running subagent's card (`sessionId`: its child session). */
  stopSubagent(sessionId: string): void;
  /** "Rewind to here" under a prompt (`messageId`: the prompt's id). */
  rewind(messageId: string): void;
  /** "Edit and resend": the prompt `messageId` replaced by `text`, sent again. */
  editPrompt(messageId: string, text: string): void;
  /** What the agent can do with a prompt: which actions a prompt shows. */
  rewindSupport(): RewindSupport;
  /** The "Open terminal" button of a command's card. */
  showTerminal(terminalId: string): void;
  /** A command the agent runs here, as its card shows it. */
  command(terminalId: string): CommandView | undefined;
  /** Everything to show when the view (re)opens. */
  snapshot(): { items: Item[]; usage: Usage | null; busy: boolean; header: HeaderState };
}

type FromWebview =
  | { type: "prompt"; text: string }
  | { type: "stop" }
  | { type: "selectSession"; sessionId: string }
  | { type: "setOption"; configId: string; value: string }
  | { type: "ready" }
  | { type: "openFile"; href: string }
  | { type: "toggleTool"; id: string; expanded: boolean }
  | { type: "showTerminal"; terminalId: string }
  | { type: "stopSubagent"; sessionId: string }
  | { type: "rewind"; messageId: string }
  | { type: "editPrompt"; messageId: string; text: string };

export class ChatViewProvider implements vscode.WebviewViewProvider {
  static readonly viewId = "heron.chat";
  private view: vscode.WebviewView | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly actions: ChatActions,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const media = vscode.Uri.joinPath(this.extensionUri, "media");
    view.webview.options = { enableScripts: true, localResourceRoots: [media] };
    view.webview.html = chatHtml({
      cspSource: view.webview.cspSource,
      nonce: makeNonce(),
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, "chat.js")).toString(),
      styleUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, "chat.css")).toString(),
    });
    view.webview.onDidReceiveMessage((message: FromWebview) => {
      if (message.type === "prompt" && typeof message.text === "string") this.actions.prompt(message.text);
      else if (message.type === "stop") this.actions.stop();
      else if (message.type === "selectSession" && typeof message.sessionId === "string") this.actions.selectSession(message.sessionId);
      else if (message.type === "setOption" && typeof message.configId === "string" && typeof message.value === "string")
        this.actions.setOption(message.configId, message.value);
      else if (message.type === "openFile" && typeof message.href === "string") this.actions.openFile(message.href);
      else if (message.type === "toggleTool" && typeof message.id === "string" && typeof message.expanded === "boolean")
        this.actions.toggleTool(message.id, message.expanded);
      else if (message.type === "showTerminal" && typeof message.terminalId === "string") this.actions.showTerminal(message.terminalId);
      else if (message.type === "stopSubagent" && typeof message.sessionId === "string") this.actions.stopSubagent(message.sessionId);
      else if (message.type === "rewind" && typeof message.messageId === "string") this.actions.rewind(message.messageId);
      else if (message.type === "editPrompt" && typeof message.messageId === "string" && typeof message.text === "string" && message.text.trim() !== "")
        this.actions.editPrompt(message.messageId, message.text.trim());
      else if (message.type === "ready") {
        const { items, usage, busy, header } = this.actions.snapshot();
        this.post({ type: "reset" });
        this.showItems(items, usage);
        this.setBusy(busy);
        this.showHeader(header);
        this.actions.refreshSessions();
      }
    });
    view.onDidDispose(() => {
      this.view = undefined;
    });
  }

  /** Shows the chat; VS Code creates the view on its first focus, so ask for that. */
  reveal(): void {
    if (this.view) this.view.show(true);
    else void vscode.commands.executeCommand(`${ChatViewProvider.viewId}.focus`);
  }

  reset(): void {
    this.post({ type: "reset" });
  }

  showItems(items: Item[], usage: Usage | null): void {
    const context = {
      displayPath: (path: string): string => vscode.workspace.asRelativePath(path),
      command: (terminalId: string) => this.actions.command(terminalId),
      rewind: this.actions.rewindSupport(),
    };
    const html = items.map((i) => ({
      id: i.id,
      kind: i.kind,
      status: i.kind === "tool" ? i.status : undefined,
      html: renderItem(i, context),
      label: itemLabel(i),
    }));
    this.post({ type: "items", items: html, usage: toUsageView(usage) });
  }

  /** Items that left the conversation (a rewind). */
  removeItems(items: readonly Item[]): void {
    if (items.length > 0) this.post({ type: "remove", ids: items.map((i) => i.id) });
  }

  /** Puts text in the prompt box (a rewound prompt, to edit and send again) and focuses it. */
  fillPrompt(text: string): void {
    this.post({ type: "fillPrompt", text });
  }

  showHeader(header: HeaderState): void {
    this.post({ type: "header", ...toHeaderView(header) });
  }

  setBusy(busy: boolean): void {
    this.post({ type: "busy", busy });
  }

  private post(message: unknown): void {
    void this.view?.webview.postMessage(message);
  }
}
