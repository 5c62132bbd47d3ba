// What the session controller is given (the agent command, the editor's handlers, a log) and
// whom it tells what happens (its listener). No vscode here.
import type { RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import type { AgentCommand } from "./agentProcess";
import type { FsHandler, TerminalHandler } from "./connection";
import type { DiagnosticsHandler } from "./diagnostics";
import type { HeaderState } from "./header";
import type { Log } from "./log";
import type { Item } from "./transcript";

export type SessionState = "stopped" | "starting" | "ready" | "working" | "waiting" | "error";

export interface SessionListener {
  onState(state: SessionState, detail?: string): void;
  /** Items that changed (or were added) in the transcript. */
  onItems(items: Item[]): void;
  /** The transcript was cleared (new or loaded session). */
  onReset(): void;
  /** Items left the transcript (a rewind): they are no longer shown. */
  onRemoved?(items: Item[]): void;
  /** The session's current mode changed (set by us or by the agent). */
  onMode?(modeId: string | null): void;
  /** What the chat's header shows changed: the session, its title, the session list or the config options. */
  onHeader?(header: HeaderState): void;
}

export interface PermissionPrompter {
  request(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse>;
}

export interface SessionControllerOptions {
  agentCommand: () => AgentCommand;
  /** The approval mode to set on every new session, e.g. "ask". */
  initialMode: () => string | undefined;
  fs: FsHandler;
  terminals: TerminalHandler & { releaseAll(): void };
  permissions: PermissionPrompter;
  /** The editor's diagnostics for the agent; without it they are not offered. */
  diagnostics?: DiagnosticsHandler;
  log: Log;
  listener: SessionListener;
}
