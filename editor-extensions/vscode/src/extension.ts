// Entry point: wires the session controller to VS Code (commands, chat view, status bar).
import * as vscode from "vscode";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { agentEnv, type AgentCommand } from "./agentProcess";
import { ChatViewProvider } from "./chatView";
import { VscodeDiagnosticsHandler } from "./diagnosticsHandler";
import { EditedFileRevealer } from "./editedFileReveal";
import { VscodeFsHandler } from "./fsHandler";
import { NEW_SESSION } from "./header";
import type { Log } from "./log";
import { PROPOSAL_SCHEME, ProposalProvider, VscodePermissionPrompter } from "./permissionPrompt";
import { selectionLines, selectionPrompt } from "./selection";
import { describe, SessionController, TurnInProgressError, type SessionState } from "./session";
import { StatusBar } from "./statusBar";
import { Batcher } from "./batcher";
import { TerminalCards } from "./terminalCards";
import { VscodeTerminalHandler } from "./terminals";
import type { Item } from "./transcript";

let controller: SessionController | undefined;

function settings(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration("heron");
}

/** The first workspace folder; Heron works in a folder, never in the extension host's cwd. */
function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new NoWorkspaceError();
  return folder.uri.fsPath;
}

class NoWorkspaceError extends Error {
  constructor() {
    super("open a folder first: Heron works in the first folder of the workspace.");
    this.name = "NoWorkspaceError";
  }
}

function agentCommand(): AgentCommand {
  const env = agentEnv(process.env);
  const model = settings().get<string>("model", "").trim();
  if (model) env.HERON_MODEL = model;
  return { command: settings().get<string>("path", "heron") || "heron", args: ["acp"], cwd: workspaceRoot(), env };
}

function outputLog(channel: vscode.OutputChannel): Log {
  return {
    info: (message) => channel.appendLine(message),
    traffic: (direction, line) => {
      if (settings().get<boolean>("traceTraffic", false)) channel.appendLine(`${direction} ${line}`);
    },
  };
}

export function activate(context: vscode.ExtensionContext): void {
  const channel = vscode.window.createOutputChannel("Heron");
  const log = outputLog(channel);
  const status = new StatusBar();
  const proposals = new ProposalProvider();
  const terminals = new VscodeTerminalHandler();
  const diagnostics = new VscodeDiagnosticsHandler();
  const edited = new EditedFileRevealer({
    enabled: () => settings().get<boolean>("showEditedFile", true),
    log: (message) => log.info(message),
  });
  let state: SessionState = "stopped";
  // Changed items are drawn together, at most every 50 ms: a streamed reply is not drawn per chunk.
  const changed = new Batcher<Item>((item) => item.id, (items) => chat.showItems(items, session.transcript.usage), 50);
  const commandCards = new TerminalCards(
    terminals,
    (ids) => session.transcript.itemsShowingTerminals(ids),
    (items) => changed.add(items),
  );

  const session: SessionController = new SessionController({
    agentCommand,
    initialMode: () => settings().get<string>("mode", "ask"),
    fs: new VscodeFsHandler((write) => void edited.written(write)),
    terminals,
    permissions: new VscodePermissionPrompter(proposals, (path) => edited.reviewApplied(path)),
    diagnostics,
    log,
    listener: {
      onState: (next, detail) => {
        changed.flush(); // what was drawn before the state changed
        state = next;
        status.show(next, detail, session.transcript.currentModeId);
        chat.setBusy(next === "working" || next === "waiting");
        if (detail) log.info(`${next}: ${detail}`);
      },
      onItems: (items) => {
        commandCards.itemsChanged(items);
        changed.add(items);
      },
      onReset: () => {
        changed.clear();
        chat.reset();
      },
      onRemoved: (items) => {
        changed.flush(); // drawn first, so that nothing pending draws a removed item again
        chat.removeItems(items);
      },
      onMode: (modeId) => status.show(state, undefined, modeId),
      onHeader: (header) => chat.showHeader(header),
    },
  });
  controller = session;

  const report = (err: unknown): void => {
    if (err instanceof TurnInProgressError) {
      void vscode.window.showInformationMessage(`Heron: ${err.message}`);
      return;
    }
    const message = describe(err);
    log.info(`error: ${message}`);
    void vscode.window.showErrorMessage(`Heron: ${message}`);
  };
  /** One turn at a time: a prompt while one runs is refused with a short message. */
  const send = (blocks: ContentBlock[], display: string): void => {
    if (session.busy) {
      report(new TurnInProgressError());
      return;
    }
    let cwd: string;
    try {
      cwd = workspaceRoot();
    } catch (err) {
      report(err);
      return;
    }
    chat.reveal();
    session.prompt(blocks, display, cwd).then((stopReason) => {
      if (stopReason !== "end_turn") log.info(`turn ended: ${stopReason}`);
    }, report);
  };

  /** "Rewind to here": on success the prompt's text goes back into the prompt box. */
  const rewind = (messageId: string): void => {
    if (session.busy) {
      report(new TurnInProgressError());
      return;
    }
    session.rewind(messageId).then((text) => {
      if (text !== null) chat.fillPrompt(text);
    }, report);
  };
  /** "Edit and resend": the edited text replaces the prompt and is answered as a prompt is. */
  const editPrompt = (messageId: string, text: string): void => {
    if (session.busy) {
      report(new TurnInProgressError());
      return;
    }
    session.editPrompt(messageId, [{ type: "text", text }], text).then((stopReason) => {
      if (stopReason !== null && stopReason !== "end_turn") log.info(`turn ended: ${stopReason}`);
    }, report);
  };

  const newSession = async (): Promise<void> => {
    chat.reveal(); // at once: the chat shows the session starting
    try {
      await session.newSession(workspaceRoot());
    } catch (err) {
      report(err);
    }
  };
  /** The header's session picker: "" starts a new session, a listed one is loaded. */
  const selectSession = async (sessionId: string): Promise<void> => {
    if (sessionId === NEW_SESSION) return newSession();
    const listed = session.header.sessions.find((s) => s.sessionId === sessionId);
    if (!listed || sessionId === session.sessionId) {
      chat.showHeader(session.header); // the picker goes back to the session shown
      return;
    }
    await session.loadSession(sessionId, listed.cwd).catch(report);
  };

  const chat = new ChatViewProvider(context.extensionUri, {
    prompt: (text) => send([{ type: "text", text }], text),
    openFile: (href) => void openFileLink(href).catch(report),
    stop: () => void session.cancel().catch(report),
    selectSession: (sessionId) => void selectSession(sessionId),
    setOption: (configId, value) => void session.setOption(configId, value).catch(report),
    refreshSessions: () => {
      // Not without a folder: the agent is not started then, and the first prompt says why.
      if (vscode.workspace.workspaceFolders?.[0]) void session.refreshSessions(workspaceRoot());
    },
    toggleTool: (id, expanded) => {
      // The webview has already flipped it; showing the item again keeps a render sent meanwhile from undoing that.
      const item = session.transcript.setExpanded(id, expanded);
      if (item) chat.showItems([item], session.transcript.usage);
    },
    stopSubagent: (sessionId) => {
      void session.cancelSubagent(sessionId).then((sent) => {
        if (!sent) log.info(`subagent ${sessionId} is not running: not stopped`);
      }, report);
    },
    showTerminal: (terminalId) => {
      if (!terminals.show(terminalId)) void vscode.window.showInformationMessage("Heron: that terminal has been closed.");
    },
    command: (terminalId) => terminals.view(terminalId),
    rewind,
    editPrompt,
    rewindSupport: () => session.rewindSupport,
    snapshot: () => ({
      items: session.transcript.items,
      usage: session.transcript.usage,
      busy: state === "working" || state === "waiting",
      header: session.header,
    }),
  });

  context.subscriptions.push(
    channel,
    commandCards,
    { dispose: () => changed.clear() },
    status,
    diagnostics,
    vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, proposals),
    vscode.window.registerWebviewViewProvider(ChatViewProvider.viewId, chat, {
      webviewOptions: { retainContextWhenHidden: true },
    }),
    vscode.commands.registerCommand("heron.newSession", newSession),
    vscode.commands.registerCommand("heron.askAboutSelection", async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || editor.selection.isEmpty) {
        void vscode.window.showInformationMessage("Heron: select some text first.");
        return;
      }
      if (session.busy) {
        report(new TurnInProgressError());
        return;
      }
      const question = await vscode.window.showInputBox({ prompt: "Ask Heron about the selection" });
      if (!question) return;
      const { selection, document } = editor;
      const { blocks, display } = selectionPrompt({
        uri: document.uri.toString(),
        path: vscode.workspace.asRelativePath(document.uri),
        languageId: document.languageId,
        text: document.getText(selection),
        ...selectionLines(selection),
        question,
      });
      send(blocks, display);
    }),
    vscode.commands.registerCommand("heron.cancel", () => session.cancel().catch(report)),
    vscode.commands.registerCommand("heron.switchMode", async () => {
      const modes = session.modes;
      if (!session.sessionId || !modes) {
        void vscode.window.showInformationMessage("Heron: open a session first.");
        return;
      }
      const picked = await vscode.window.showQuickPick(
        modes.availableModes.map((m) => ({
          label: m.name,
          description: m.id === modes.currentModeId ? "current" : "",
          detail: m.description ?? undefined,
          id: m.id,
        })),
        { title: "Heron: switch mode" },
      );
      if (!picked) return;
      try {
        await session.setMode(picked.id);
        status.show(state, undefined, picked.id);
      } catch (err) {
        report(err);
      }
    }),
    vscode.commands.registerCommand("heron.loadSession", async () => {
      try {
        const sessions = await session.listSessions(workspaceRoot());
        if (sessions.length === 0) {
          void vscode.window.showInformationMessage("Heron: no saved sessions for this workspace.");
          return;
        }
        const picked = await vscode.window.showQuickPick(
          sessions.map((s) => ({
            label: s.title ?? s.sessionId,
            description: s.updatedAt ?? "",
            id: s.sessionId,
            cwd: s.cwd,
          })),
          { title: "Heron: load session" },
        );
        if (!picked) return;
        chat.reveal();
        await session.loadSession(picked.id, picked.cwd);
      } catch (err) {
        report(err);
      }
    }),
    vscode.commands.registerCommand("heron.showLog", () => channel.show(true)),
  );
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
  controller = undefined;
}

/** A `file:` link clicked in the chat: opened in an editor, at the line its `#L<n>` names. */
async function openFileLink(href: string): Promise<void> {
  const url = new URL(href);
  if (url.protocol !== "file:") return;
  const line = /^#L(\d+)/.exec(url.hash)?.[1];
  const uri = vscode.Uri.file(decodeURIComponent(url.pathname));
  const at = line === undefined ? undefined : new vscode.Position(Math.max(0, Number(line) - 1), 0);
  await vscode.window.showTextDocument(uri, at ? { selection: new vscode.Range(at, at) } : {});
}
