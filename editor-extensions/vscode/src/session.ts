// The session controller: owns the agent process, the ACP connection, the current
// session and its transcript. No vscode here: the UI listens through callbacks.
import type {
  ContentBlock,
  PromptRequest,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionConfigOption,
  SessionInfo,
  SessionModeState,
  StopReason,
} from "@agentclientprotocol/sdk";
import { methods, RequestError } from "@agentclientprotocol/sdk/unstable"; // the code connection.ts runs (one copy of the SDK)
import { AgentProcess } from "./agentProcess";
import type { IncomingNotification } from "./childSessions";
import { connectToAgent, type AgentConnection } from "./connection";
import type { DiagnosticsParams, DiagnosticsResult } from "./diagnostics";
import { MODES_CONFIG_ID, type HeaderState } from "./header";
import { actionFailedNotice, agentExitedNotice, rewoundNotice, STOPPED_NOTICE } from "./notices";
import {
  answeredMessageId,
  EDIT_PROMPT_METHOD,
  editPromptParams,
  failedInTurn,
  newMessageId,
  NO_REWIND,
  readPromptAnswer,
  readRewound,
  REWIND_METHOD,
  rewindParams,
  rewindSupport,
  type RewindSupport,
} from "./rewind";
import { embeddedAsText } from "./selection";
import { SessionDetails, type SessionSetup } from "./sessionDetails";
import type { SessionControllerOptions, SessionState } from "./sessionPorts";
import { canStopSubagent, Transcript, type Item, type MessageItem } from "./transcript";

export type { PermissionPrompter, SessionControllerOptions, SessionListener, SessionState } from "./sessionPorts";

/** A prompt was sent while another turn is still running. */
export class TurnInProgressError extends Error {
  constructor() {
    super("Heron is still working on the last prompt: wait for it, or stop it first.");
    this.name = "TurnInProgressError";
  }
}

export class SessionController {
  readonly transcript = new Transcript();
  sessionId: string | null = null;
  /** The folder the current session works in (its cwd). */
  private sessionCwd: string | null = null;
  /** Its modes, config options and title, and the workspace's session list. */
  private readonly details = new SessionDetails();
  /** Only the answer to the latest `session/list` is kept. */
  private listRequests = 0;
  private agent: AgentProcess | null = null;
  private connecting: Promise<AgentConnection> | null = null;
  private state: SessionState = "stopped";
  private turnAbort = new AbortController();
  private pendingPermissions = 0;
  /** The running turn (session/prompt, session/load replaying, a rewind or an edited prompt): one at a time. */
  private turn: Promise<unknown> | null = null;
  /** What the agent can do with a prompt of the chat (its `initialize` answer); nothing before it has started. */
  rewindSupport: RewindSupport = NO_REWIND;

  constructor(private readonly options: SessionControllerOptions) {}

  get currentState(): SessionState {
    return this.state;
  }

  get modes(): SessionModeState | null {
    return this.details.modes;
  }

  get header(): HeaderState {
    const { title, sessions, configOptions, modes } = this.details;
    return { sessionId: this.sessionId, title, sessions, configOptions, modes };
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
    void agent.exited.then(({ code, signal }) => {
      if (this.agent !== agent) return;
      this.agent = null;
      this.connecting = null;
      this.sessionId = null;
      this.emitHeader();
      // Whatever the agent started through us is orphaned now, and its tools will not finish.
      this.turnAbort.abort();
      this.options.terminals.releaseAll();
      const failed = this.transcript.failUnfinishedTools();
      this.options.listener.onItems([...failed, ...this.transcript.apply(agentExitedNotice(code, signal))]);
      void agent.stop(); // what it left in its process group
      this.setState("error", "the agent process exited");
    });
    try {
      const connected = await connecting;
      this.rewindSupport = rewindSupport(connected.initialize);
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
    this.showSession(null);
    const response = await connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
    this.sessionCwd = cwd;
    this.showSession(response.sessionId);
    this.setUp(response);
    this.listAgain(cwd);
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

  /** `session/set_config_option` (the modes' `session/set_mode` without options); on an error the header is shown as it was. */
  async setOption(configId: string, value: string): Promise<void> {
    try {
      const { connection } = await this.connect();
      const sessionId = this.requireSession();
      const options = this.details.configOptions;
      if (options.length === 0 && configId === MODES_CONFIG_ID && this.modes) {
        await this.setMode(value);
        return;
      }
      if (!options.some((o) => o.id === configId && o.type === "select")) throw new Error(`the session has no option ${configId}`);
      const response = await connection.agent.request(methods.agent.session.setConfigOption, { sessionId, configId, value });
      if (sessionId === this.sessionId) this.applyConfigOptions(response.configOptions);
    } catch (err) {
      this.emitHeader();
      throw err;
    }
  }

  /** Another session is shown (null: none); nothing is known of it until its answer arrives. */
  private showSession(sessionId: string | null): void {
    this.sessionId = sessionId;
    this.details.open();
    this.setCurrentMode(null);
  }

  /** What `session/new` or `session/load` answered: the session's modes and config options. */
  private setUp(setup: SessionSetup): void {
    this.details.setUp(setup);
    this.setCurrentMode(this.details.currentMode);
  }

  private applyConfigOptions(options: SessionConfigOption[]): void {
    this.details.setConfigOptions(options);
    const mode = this.details.currentMode;
    if (mode !== null && mode !== this.transcript.currentModeId) this.setCurrentMode(mode);
    else this.emitHeader();
  }

  private setCurrentMode(modeId: string | null): void {
    if (modeId !== null) this.details.setMode(modeId);
    this.transcript.currentModeId = modeId;
    this.options.listener.onMode?.(modeId);
    this.emitHeader();
  }

  /** Sends a prompt in the current session (opening one in `cwd` if needed). One turn at a time. */
  prompt(blocks: ContentBlock[], displayText: string, cwd: string): Promise<StopReason> {
    return this.startTurn(() => this.runPrompt(blocks, displayText, cwd));
  }

  /** Runs `run` as the turn: refused while another one runs. */
  private startTurn<T>(run: () => Promise<T>): Promise<T> {
    if (this.turn) return Promise.reject(new TurnInProgressError());
    const turn = run();
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
      // An agent that can rewind is told each prompt's id, which "Rewind to here" names later.
      const messageId = this.rewindSupport.rewind ? newMessageId() : null;
      const item = this.transcript.addUserPrompt(displayText, messageId);
      this.options.listener.onItems([item]);
      this.setState("working");
      const params: PromptRequest & { messageId?: string } = { sessionId, prompt };
      if (messageId !== null) params.messageId = messageId;
      const response = await connection.agent.request(methods.agent.session.prompt, params);
      await settle();
      this.namePrompt(item, answeredMessageId(response));
      if (response.stopReason === "cancelled") {
        this.options.listener.onItems(this.transcript.apply(STOPPED_NOTICE));
      }
      this.setState("ready");
      if (this.sessionCwd !== null) this.listAgain(this.sessionCwd); // a first prompt gives it a title
      return response.stopReason;
    } catch (err) {
      // An error answering this prompt leaves a live agent usable; a dead one is the error state.
      if (agent !== null && this.agent === agent && agent.running) this.setState("ready", describe(err));
      else if (this.state !== "error") this.setState(this.agent?.running ? "ready" : "error", describe(err));
      throw err;
    }
  }

  /** The prompt's id, as the agent says it in its answer (it may have made one). */
  private namePrompt(item: MessageItem, messageId: string | null): void {
    if (messageId === null || messageId === item.messageId) return;
    item.messageId = messageId;
    this.options.listener.onItems([item]);
  }

  /**
   * "Rewind to here": `session/rewind` back to before the prompt `messageId`, its files restored
   * too (the agent shows what and asks first). Then the prompt and everything after it leave the
   * chat, and its text is returned for the input box. On a failure the chat says why: null.
   */
  rewind(messageId: string): Promise<string | null> {
    return this.startTurn(() => this.runRewind(messageId));
  }

  private async runRewind(messageId: string): Promise<string | null> {
    this.beginAction();
    try {
      const { connection, sessionId, index } = await this.rewindTarget(messageId, "rewind");
      const prompt = this.transcript.items[index] as MessageItem;
      const gone = this.transcript.items.slice(index); // not what the agent shows meanwhile (its restore preview)
      const rewound = readRewound(await connection.agent.request(REWIND_METHOD, rewindParams(sessionId, messageId, "both")));
      await settle();
      this.transcript.cutOut(gone);
      this.options.listener.onRemoved?.(gone);
      this.options.listener.onItems(this.transcript.apply(rewoundNotice(prompt.text, rewound.files)));
      this.endAction();
      return prompt.text;
    } catch (err) {
      await settle();
      this.actionFailed("Rewind failed.", err);
      return null;
    }
  }

  /**
   * "Edit and resend": `session/edit_prompt` rewinds to before the prompt `messageId` (files
   * restored too, asked first) and runs `blocks` in its place, streamed as a prompt is. The old
   * prompt and what followed it leave the chat at once; they come back if the rewind does not
   * happen (refused, or the restore declined). On a failure the chat says why: null.
   */
  editPrompt(messageId: string, blocks: ContentBlock[], displayText: string): Promise<StopReason | null> {
    return this.startTurn(() => this.runEdit(messageId, blocks, displayText));
  }

  private async runEdit(messageId: string, blocks: ContentBlock[], displayText: string): Promise<StopReason | null> {
    this.beginAction();
    let replaced: { index: number; gone: Item[]; item: MessageItem } | null = null;
    try {
      const { connection, initialize, sessionId, index } = await this.rewindTarget(messageId, "edit");
      const embedded = initialize.agentCapabilities?.promptCapabilities?.embeddedContext === true;
      const content = embedded ? blocks : blocks.map(embeddedAsText);
      const gone = this.transcript.cutFrom(index);
      this.options.listener.onRemoved?.(gone);
      const item = this.transcript.addUserPrompt(displayText);
      replaced = { index, gone, item };
      this.options.listener.onItems([item]);
      const params = editPromptParams(sessionId, messageId, content, "both");
      const answer = readPromptAnswer(await connection.agent.request(EDIT_PROMPT_METHOD, params));
      await settle();
      this.transcript.forget(gone);
      this.namePrompt(item, answer.userMessageId);
      if (answer.stopReason === "cancelled") this.options.listener.onItems(this.transcript.apply(STOPPED_NOTICE));
      this.endAction();
      return answer.stopReason;
    } catch (err) {
      await settle();
      if (replaced !== null && !failedInTurn(err)) {
        // Nothing changed: the old prompt and what followed it are shown again where they were.
        this.transcript.remove(replaced.item);
        this.transcript.putBack(replaced.index, replaced.gone);
        this.options.listener.onReset();
        this.options.listener.onItems([...this.transcript.items]);
      } else if (replaced !== null) {
        this.transcript.forget(replaced.gone);
      }
      this.actionFailed("Edit and resend failed.", err);
      return null;
    }
  }

  private beginAction(): void {
    this.turnAbort = new AbortController();
    this.setState("working");
  }

  private endAction(): void {
    this.setState("ready");
    if (this.sessionCwd !== null) this.listAgain(this.sessionCwd);
  }

  /** The failure of a rewind or an edited prompt, said in the chat; the agent stays usable if it runs. */
  private actionFailed(title: string, err: unknown): void {
    const message = describe(err);
    this.options.listener.onItems(this.transcript.apply(actionFailedNotice(title, message)));
    if (this.agent?.running) this.setState("ready", message);
    else if (this.state !== "error") this.setState("error", message);
  }

  /** The open session, the agent's connection and where the prompt `messageId` is; throws what the chat says when one is missing. */
  private async rewindTarget(messageId: string, what: "rewind" | "edit") {
    const sessionId = this.sessionId;
    if (sessionId === null || this.connecting === null) throw new Error("No session is open: the conversation cannot be rewound.");
    const { connection, initialize } = await this.connecting;
    if (!this.rewindSupport.rewind || (what === "edit" && !this.rewindSupport.editPrompt)) {
      throw new Error(what === "edit" ? "The agent cannot edit a prompt it has answered." : "The agent cannot rewind the conversation.");
    }
    const index = this.transcript.promptIndex(messageId);
    if (index < 0) throw new Error("That prompt is no longer in this conversation.");
    return { connection, initialize, sessionId, index };
  }

  /** session/cancel; open permission questions are answered `cancelled`. */
  async cancel(): Promise<void> {
    this.turnAbort.abort();
    if (!this.sessionId || !this.connecting) return;
    const { connection } = await this.connecting;
    await connection.agent.notify(methods.agent.session.cancel, { sessionId: this.sessionId });
  }

  /**
   * Stops one subagent alone: `session/cancel` with its child session's id, sent only while it
   * runs and the agent lets it be cancelled (its `capabilities.cancel`). The parent's turn goes
   * on. False when that is not so (it has ended meanwhile, or it is not a child of this session).
   */
  async cancelSubagent(sessionId: string): Promise<boolean> {
    const child = this.transcript.subagent(sessionId);
    if (!child || !canStopSubagent(child) || !this.connecting) return false;
    const { connection } = await this.connecting;
    await connection.agent.notify(methods.agent.session.cancel, { sessionId });
    return true;
  }

  /** Cancels the running turn, if any, and waits until its prompt has been answered. */
  private async cancelTurn(): Promise<void> {
    const turn = this.turn;
    if (!turn) return;
    await this.cancel();
    await turn.catch(() => undefined);
  }

  async listSessions(cwd: string): Promise<SessionInfo[]> {
    const sessions = await this.requestSessionList(cwd);
    if (sessions === null) throw new Error("the agent cannot list sessions");
    return sessions;
  }

  /** `session/list` for `cwd`; null when the agent cannot list sessions. */
  private async requestSessionList(cwd: string): Promise<SessionInfo[] | null> {
    const { connection, initialize } = await this.connect();
    if (!initialize.agentCapabilities?.sessionCapabilities?.list) return null;
    return (await connection.agent.request(methods.agent.session.list, { cwd })).sessions;
  }

  /** The workspace's recent sessions for the header, asked again; never throws (a failure is logged). */
  async refreshSessions(cwd: string): Promise<void> {
    const request = ++this.listRequests;
    let sessions: SessionInfo[];
    try {
      sessions = (await this.requestSessionList(cwd)) ?? [];
    } catch (err) {
      this.options.log.info(`listing sessions failed: ${describe(err)}`);
      return;
    }
    if (request !== this.listRequests) return; // a later refresh was asked for: its answer wins
    this.details.sessions = sessions;
    this.emitHeader();
  }

  /** The session list asked for again after a change, on the agent there is: a stopped one is not started for it. */
  private listAgain(cwd: string): void {
    if (this.connecting) void this.refreshSessions(cwd);
  }

  /** session/load: the agent replays the conversation as session updates. A running turn is cancelled first. */
  async loadSession(sessionId: string, cwd: string): Promise<void> {
    await this.cancelTurn();
    const { connection, initialize } = await this.connect();
    if (initialize.agentCapabilities?.loadSession !== true) throw new Error("the agent cannot load sessions");
    if (this.turn) throw new TurnInProgressError();
    const load = (async () => {
      this.resetTranscript();
      this.showSession(sessionId);
      this.sessionCwd = cwd;
      this.setState("working");
      try {
        const response = await connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
        await settle();
        this.setUp(response);
        this.setState("ready");
        this.listAgain(cwd);
      } catch (err) {
        // Back to a usable state: no session (the next prompt opens a new one).
        this.showSession(null);
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
    this.emitHeader();
    if (agent) await agent.stop();
    this.setState("stopped");
  }

  private async requestPermission(
    params: RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse> {
    // A question about a session we no longer show (an old or foreign one) is not put to the user;
    // one of its subagents' (a child session it announced) is.
    if (params.sessionId !== this.sessionId && (this.sessionId === null || !this.transcript.subagent(params.sessionId))) {
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

  private onUpdate(notification: IncomingNotification): void {
    const update = notification.update;
    if (notification.sessionId !== this.sessionId) {
      // A subagent's own session: only one the session shown has announced or linked to.
      if (this.sessionId !== null) this.options.listener.onItems(this.transcript.applyChild(notification.sessionId, update));
      return;
    }
    const changed = this.transcript.apply(update);
    if (update.sessionUpdate === "current_mode_update") this.setCurrentMode(update.currentModeId);
    else if (update.sessionUpdate === "config_option_update") this.applyConfigOptions(update.configOptions);
    else if (update.sessionUpdate === "session_info_update" && typeof update.title === "string") {
      this.details.title = update.title;
      this.emitHeader();
    }
    this.options.listener.onItems(changed);
  }

  private emitHeader(): void {
    this.options.listener.onHeader?.(this.header);
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
