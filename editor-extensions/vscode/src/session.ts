// The session controller: owns the agent process, the ACP connection, the current
// session and its transcript. No vscode here: the UI listens through callbacks.
import {
  methods,
  RequestError,
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
import type { DiagnosticsHandler, DiagnosticsParams, DiagnosticsResult } from "./diagnostics";
import type { Log } from "./log";
import { embeddedAsText } from "./selection";
import { Transcript, type Item } from "./transcript";

export type SessionState = "stopped" | "starting" | "ready" | "working" | "waiting" | "error";

export interface SessionListener {
  onState(state: SessionState, detail?: string): void;
  /** Items that changed (or were added) in the transcript. */
  onItems(items: Item[]): void;
  /** The transcript was cleared (new or loaded session). */
  onReset(): void;
  /** The session's current mode changed (set by us or by the agent). */
  onMode?(modeId: string | null): void;
}

/** A prompt was sent while another turn is still running. */
export class TurnInProgressError extends Error {
  constructor() {
    super("Heron is still working on the last prompt: wait for it, or cancel it first.");
    this.name = "TurnInProgressError";
  }
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

export class SessionController {
  readonly transcript = new Transcript();
  sessionId: string | null = null;
  /** The folder the current session works in (its cwd). */
  private sessionCwd: string | null = null;
  modes: SessionModeState | null = null;
  private agent: AgentProcess | null = null;
  private connecting: Promise<AgentConnection> | null = null;
  private state: SessionState = "stopped";
  private turnAbort = new AbortController();
  private pendingPermissions = 0;
  /** The running turn (session/prompt, or session/load replaying): one at a time. */
  private turn: Promise<unknown> | null = null;

  constructor(private readonly options: SessionControllerOptions) {}

  get currentState(): SessionState {
    return this.state;
  }

  /** A turn is running: new prompts are refused until it ends. */
  get busy(): boolean {
    return this.turn !== null;
  }

  /** Starts the agent and initializes the connection, once. */
  async connect(): Promise<AgentConnection> {
    if (this.connecting) return this.connecting;
    const command = this.options.agentCommand(); // may refuse (no workspace folder): nothing started yet
    this.setState("starting");
    const agent = new AgentProcess(command, this.options.log);
    this.agent = agent;
    const connecting = connectToAgent(
      agent,
      {
        fs: this.options.fs,
        terminals: this.options.terminals,
        requestPermission: (params, signal) => this.requestPermission(params, signal),
        sessionUpdate: (params) => this.onUpdate(params),
        diagnostics: this.options.diagnostics ? (params, signal) => this.answerDiagnostics(params, signal) : undefined,
      },
      this.options.log,
    );
    this.connecting = connecting;
    void agent.exited.then(() => {
      if (this.agent !== agent) return;
      this.agent = null;
      this.connecting = null;
      this.sessionId = null;
      // Whatever the agent started through us is orphaned now, and its tools will not finish.
      this.turnAbort.abort();
      this.options.terminals.releaseAll();
      const failed = this.transcript.failUnfinishedTools();
      if (failed.length > 0) this.options.listener.onItems(failed);
      void agent.stop(); // what it left in its process group
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

  /** Opens a new session; a running turn is cancelled first. */
  async newSession(cwd: string): Promise<string> {
    await this.cancelTurn();
    return this.openSession(cwd);
  }

  private async openSession(cwd: string): Promise<string> {
    const { connection } = await this.connect();
    this.resetTranscript();
    this.sessionId = null;
    const response = await connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
    this.sessionId = response.sessionId;
    this.sessionCwd = cwd;
    this.modes = response.modes ?? null;
    this.setCurrentMode(this.modes?.currentModeId ?? null);
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
    this.setCurrentMode(modeId);
  }

  private setCurrentMode(modeId: string | null): void {
    if (this.modes && modeId !== null) this.modes = { ...this.modes, currentModeId: modeId };
    this.transcript.currentModeId = modeId;
    this.options.listener.onMode?.(modeId);
  }

  /** Sends a prompt in the current session (opening one in `cwd` if needed). One turn at a time. */
  prompt(blocks: ContentBlock[], displayText: string, cwd: string): Promise<StopReason> {
    if (this.turn) return Promise.reject(new TurnInProgressError());
    const turn = this.runPrompt(blocks, displayText, cwd);
    this.turn = turn;
    const clear = (): void => {
      if (this.turn === turn) this.turn = null;
    };
    turn.then(clear, clear);
    return turn;
  }

  private async runPrompt(blocks: ContentBlock[], displayText: string, cwd: string): Promise<StopReason> {
    this.turnAbort = new AbortController();
    this.setState("working");
    let agent: AgentProcess | null = null;
    try {
      if (!this.sessionId) await this.openSession(cwd);
      const sessionId = this.requireSession();
      const { connection, initialize } = await this.connect();
      agent = this.agent;
      const embedded = initialize.agentCapabilities?.promptCapabilities?.embeddedContext === true;
      const prompt = embedded ? blocks : blocks.map(embeddedAsText);
      this.options.listener.onItems([this.transcript.addUserPrompt(displayText)]);
      this.setState("working");
      const response = await connection.agent.request(methods.agent.session.prompt, { sessionId, prompt });
      await settle();
      this.setState("ready");
      return response.stopReason;
    } catch (err) {
      // An error answering this prompt leaves a live agent usable; a dead one is the error state.
      if (agent !== null && this.agent === agent && agent.running) this.setState("ready", describe(err));
      else if (this.state !== "error") this.setState(this.agent?.running ? "ready" : "error", describe(err));
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

  /** Cancels the running turn, if any, and waits until its prompt has been answered. */
  private async cancelTurn(): Promise<void> {
    const turn = this.turn;
    if (!turn) return;
    await this.cancel();
    await turn.catch(() => undefined);
  }

  async listSessions(cwd: string): Promise<SessionInfo[]> {
    const { connection, initialize } = await this.connect();
    if (!initialize.agentCapabilities?.sessionCapabilities?.list) {
      throw new Error("the agent cannot list sessions");
    }
    const response = await connection.agent.request(methods.agent.session.list, { cwd });
    return response.sessions;
  }

  /** session/load: the agent replays the conversation as session updates. A running turn is cancelled first. */
  async loadSession(sessionId: string, cwd: string): Promise<void> {
    await this.cancelTurn();
    const { connection, initialize } = await this.connect();
    if (initialize.agentCapabilities?.loadSession !== true) throw new Error("the agent cannot load sessions");
    if (this.turn) throw new TurnInProgressError();
    const load = (async () => {
      this.resetTranscript();
      this.sessionId = sessionId;
      this.sessionCwd = cwd;
      this.setState("working");
      try {
        const response = await connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
        await settle();
        this.modes = response.modes ?? null;
        this.setCurrentMode(this.modes?.currentModeId ?? null);
        this.setState("ready");
      } catch (err) {
        // Back to a usable state: no session (the next prompt opens a new one).
        this.sessionId = null;
        this.modes = null;
        this.setCurrentMode(null);
        if (this.agent?.running) this.setState("ready", describe(err));
        else if (this.state !== "error") this.setState("error", describe(err));
        throw err;
      }
    })();
    this.turn = load;
    try {
      await load;
    } finally {
      if (this.turn === load) this.turn = null;
    }
  }

  async stop(): Promise<void> {
    this.turnAbort.abort();
    this.turn = null;
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
    // A question about a session we no longer show (an old or foreign one) is not put to the user.
    if (params.sessionId !== this.sessionId) {
      this.options.log.info(`permission request for session ${params.sessionId} answered cancelled`);
      return { outcome: { outcome: "cancelled" } };
    }
    this.pendingPermissions += 1;
    this.setState("waiting");
    try {
      return await this.options.permissions.request(params, AbortSignal.any([signal, this.turnAbort.signal]));
    } finally {
      this.pendingPermissions -= 1;
      if (this.pendingPermissions === 0 && this.state === "waiting") this.setState("working");
    }
  }

  /** Only for the session shown, and only inside the folder it works in. */
  private answerDiagnostics(params: DiagnosticsParams, signal: AbortSignal): Promise<DiagnosticsResult> {
    const handler = this.options.diagnostics;
    if (!handler || params.sessionId !== this.sessionId || this.sessionCwd === null) {
      return Promise.reject(RequestError.sessionNotFound(params.sessionId));
    }
    return handler.diagnostics(params, [this.sessionCwd], signal);
  }

  private onUpdate(notification: SessionNotification): void {
    if (notification.sessionId !== this.sessionId) return;
    const changed = this.transcript.apply(notification.update);
    if (notification.update.sessionUpdate === "current_mode_update") {
      this.setCurrentMode(notification.update.currentModeId);
    }
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
