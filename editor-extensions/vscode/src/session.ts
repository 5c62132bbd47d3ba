// The session controller: owns the agent process, the ACP connection, the current
// session and its transcript. No vscode here: the UI listens through callbacks.
import {
  methods,
  type ContentBlock,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionInfo,
  type SessionModeState,
  type SessionNotification,
  type StopReason,
} from "@agentclientprotocol/sdk";
import { AgentProcess, type AgentCommand } from "./agentProcess";
import { connectToAgent, type AgentConnection, type FsHandler, type TerminalHandler } from "./connection";
import type { Log } from "./log";
import { Transcript, type Item } from "./transcript";

export type SessionState = "stopped" | "starting" | "ready" | "working" | "waiting" | "error";

export interface SessionListener {
  onState(state: SessionState, detail?: string): void;
  /** Items that changed (or were added) in the transcript. */
  onItems(items: Item[]): void;
  /** The transcript was cleared (new or loaded session). */
  onReset(): void;
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
  log: Log;
  listener: SessionListener;
}

export class SessionController {
  readonly transcript = new Transcript();
  sessionId: string | null = null;
  modes: SessionModeState | null = null;
  private agent: AgentProcess | null = null;
  private connecting: Promise<AgentConnection> | null = null;
  private state: SessionState = "stopped";
  private turnAbort = new AbortController();
  private pendingPermissions = 0;

  constructor(private readonly options: SessionControllerOptions) {}

  get currentState(): SessionState {
    return this.state;
  }

  /** Starts the agent and initializes the connection, once. */
  async connect(): Promise<AgentConnection> {
    if (this.connecting) return this.connecting;
    this.setState("starting");
    const agent = new AgentProcess(this.options.agentCommand(), this.options.log);
    this.agent = agent;
    const connecting = connectToAgent(
      agent,
      {
        fs: this.options.fs,
        terminals: this.options.terminals,
        requestPermission: (params, signal) => this.requestPermission(params, signal),
        sessionUpdate: (params) => this.onUpdate(params),
      },
      this.options.log,
    );
    this.connecting = connecting;
    void agent.exited.then(() => {
      if (this.agent !== agent) return;
      this.agent = null;
      this.connecting = null;
      this.sessionId = null;
      this.setState("error", "the agent process exited");
    });
    try {
      const connected = await connecting;
      this.setState("ready");
      return connected;
    } catch (err) {
      this.agent = null;
      this.connecting = null;
      await agent.stop();
      this.setState("error", describe(err));
      throw err;
    }
  }

  async newSession(cwd: string): Promise<string> {
    const { connection } = await this.connect();
    this.resetTranscript();
    this.sessionId = null;
    const response = await connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
    this.sessionId = response.sessionId;
    this.modes = response.modes ?? null;
    this.transcript.currentModeId = this.modes?.currentModeId ?? null;
    const wanted = this.options.initialMode();
    if (wanted && this.modes && this.modes.currentModeId !== wanted) {
      if (this.modes.availableModes.some((m) => m.id === wanted)) await this.setMode(wanted);
      else this.options.log.info(`mode ${wanted} is not offered by the agent`);
    }
    this.setState("ready");
    return response.sessionId;
  }

  async setMode(modeId: string): Promise<void> {
    const { connection } = await this.connect();
    const sessionId = this.requireSession();
    await connection.agent.request(methods.agent.session.setMode, { sessionId, modeId });
    if (this.modes) this.modes = { ...this.modes, currentModeId: modeId };
    this.transcript.currentModeId = modeId;
  }

  /** Sends a prompt in the current session (opening one in `cwd` if needed). */
  async prompt(blocks: ContentBlock[], displayText: string, cwd: string): Promise<StopReason> {
    if (!this.sessionId) await this.newSession(cwd);
    const sessionId = this.requireSession();
    const { connection } = await this.connect();
    this.options.listener.onItems([this.transcript.addUserPrompt(displayText)]);
    this.turnAbort = new AbortController();
    this.setState("working");
    try {
      const response = await connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: blocks });
      await settle();
      this.setState("ready");
      return response.stopReason;
    } catch (err) {
      this.setState("error", describe(err));
      throw err;
    }
  }

  /** session/cancel; open permission questions are answered `cancelled`. */
  async cancel(): Promise<void> {
    this.turnAbort.abort();
    if (!this.sessionId || !this.connecting) return;
    const { connection } = await this.connecting;
    await connection.agent.notify(methods.agent.session.cancel, { sessionId: this.sessionId });
  }

  async listSessions(cwd: string): Promise<SessionInfo[]> {
    const { connection, initialize } = await this.connect();
    if (!initialize.agentCapabilities?.sessionCapabilities?.list) {
      throw new Error("the agent cannot list sessions");
    }
    const response = await connection.agent.request(methods.agent.session.list, { cwd });
    return response.sessions;
  }

  /** session/load: the agent replays the conversation as session updates. */
  async loadSession(sessionId: string, cwd: string): Promise<void> {
    const { connection } = await this.connect();
    this.resetTranscript();
    this.sessionId = sessionId;
    this.setState("working");
    const response = await connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    await settle();
    this.modes = response.modes ?? null;
    this.transcript.currentModeId = this.modes?.currentModeId ?? null;
    this.setState("ready");
  }

  async stop(): Promise<void> {
    this.turnAbort.abort();
    this.options.terminals.releaseAll();
    const agent = this.agent;
    this.agent = null;
    this.connecting = null;
    this.sessionId = null;
    if (agent) await agent.stop();
    this.setState("stopped");
  }

  private async requestPermission(
    params: RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    this.pendingPermissions += 1;
    this.setState("waiting");
    try {
      return await this.options.permissions.request(params, AbortSignal.any([signal, this.turnAbort.signal]));
    } finally {
      this.pendingPermissions -= 1;
      if (this.pendingPermissions === 0 && this.state === "waiting") this.setState("working");
    }
  }

  private onUpdate(notification: SessionNotification): void {
    if (notification.sessionId !== this.sessionId) return;
    const changed = this.transcript.apply(notification.update);
    this.options.listener.onItems(changed);
  }

  private resetTranscript(): void {
    this.transcript.clear();
    this.options.listener.onReset();
  }

  private requireSession(): string {
    if (!this.sessionId) throw new Error("no session is open");
    return this.sessionId;
  }

  private setState(state: SessionState, detail?: string): void {
    this.state = state;
    this.options.listener.onState(state, detail);
  }
}

/**
 * The SDK resolves a response at once but runs notification handlers a few microtasks
 * later, so updates the agent sent before its response can still be queued: let them run.
 */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

export function describe(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
