// The ACP connection to the agent process: newline-delimited JSON over its stdio,
// with the client-side methods (fs, terminal, permissions, updates) routed to handlers.
import { Readable, Writable } from "node:stream";
import type {
  ClientConnection,
  CreateTerminalRequest,
  CreateTerminalResponse,
  InitializeResponse,
  KillTerminalRequest,
  ReadTextFileRequest,
  ReadTextFileResponse,
  ReleaseTerminalRequest,
  RequestPermissionRequest,
  RequestPermissionResponse,
  TerminalOutputRequest,
  TerminalOutputResponse,
  WaitForTerminalExitRequest,
  WaitForTerminalExitResponse,
  WriteTextFileRequest,
} from "@agentclientprotocol/sdk";
// The SDK's code from its unstable entry, its types from the stable one. The client's own router
// checks every `session/update` against the schema before any handler: only the unstable 1.29
// schema knows the child-session kinds (with the stable one they are dropped there), and its
// parse leaves out `session` content, so childSessions.ts reads the params as they came.
import { client, methods, ndJsonStream, type InitializeRequest } from "@agentclientprotocol/sdk/unstable";
import type { AgentProcess } from "./agentProcess";
import { readSessionNotification, SUBAGENTS_CAPABILITY, type IncomingNotification } from "./childSessions";
import {
  DIAGNOSTICS_META,
  DIAGNOSTICS_METHOD,
  parseDiagnosticsParams,
  type DiagnosticsParams,
  type DiagnosticsResult,
} from "./diagnostics";
import type { Log } from "./log";

export interface FsHandler {
  readTextFile(params: ReadTextFileRequest): Promise<ReadTextFileResponse>;
  writeTextFile(params: WriteTextFileRequest): Promise<void>;
}

export interface TerminalHandler {
  create(params: CreateTerminalRequest): Promise<CreateTerminalResponse>;
  output(params: TerminalOutputRequest): TerminalOutputResponse;
  waitForExit(params: WaitForTerminalExitRequest): Promise<WaitForTerminalExitResponse>;
  kill(params: KillTerminalRequest): void;
  release(params: ReleaseTerminalRequest): void;
}

export interface ClientHandlers {
  fs: FsHandler;
  terminals: TerminalHandler;
  requestPermission(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse>;
  /** Every session's updates: the one shown and the child sessions it announced. */
  sessionUpdate(params: IncomingNotification): void;
  /** `_heron/diagnostics`, advertised in `initialize` only when given. */
  diagnostics?: ((params: DiagnosticsParams, signal: AbortSignal) => Promise<DiagnosticsResult>) | undefined;
}

export interface AgentConnection {
  connection: ClientConnection;
  initialize: InitializeResponse;
}

export const CLIENT_INFO = { name: "heron-vscode", title: "Heron for VS Code", version: "0.2.0" };

/** Copies the bytes of one direction to the log, one ACP message per line. */
function tap(direction: "->" | "<-", log: Log): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let pending = "";
  return new TransformStream({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = pending.indexOf("\n")) !== -1) {
        const line = pending.slice(0, nl).trim();
        if (line !== "") log.traffic(direction, line);
        pending = pending.slice(nl + 1);
      }
      controller.enqueue(chunk);
    },
  });
}

/** Opens the ACP connection on the process's stdio and runs `initialize`. */
export async function connectToAgent(agent: AgentProcess, handlers: ClientHandlers, log: Log): Promise<AgentConnection> {
  const app = client({ name: CLIENT_INFO.name })
    .onRequest(methods.client.fs.readTextFile, ({ params }) => handlers.fs.readTextFile(params))
    .onRequest(methods.client.fs.writeTextFile, async ({ params }) => {
      await handlers.fs.writeTextFile(params);
      return {};
    })
    .onRequest(methods.client.session.requestPermission, ({ params, signal }) =>
      handlers.requestPermission(params, signal),
    )
    .onRequest(methods.client.terminal.create, ({ params }) => handlers.terminals.create(params))
    .onRequest(methods.client.terminal.output, ({ params }) => handlers.terminals.output(params))
    .onRequest(methods.client.terminal.waitForExit, ({ params }) => handlers.terminals.waitForExit(params))
    .onRequest(methods.client.terminal.kill, ({ params }) => {
      handlers.terminals.kill(params);
      return {};
    })
    .onRequest(methods.client.terminal.release, ({ params }) => {
      handlers.terminals.release(params);
      return {};
    })
    // Read here, not by the SDK, whose schema (1.29) drops the child-session updates (childSessions.ts).
    .onNotification(methods.client.session.update, readSessionNotification, ({ params }) => handlers.sessionUpdate(params));
  const diagnostics = handlers.diagnostics;
  if (diagnostics) {
    app.onRequest(DIAGNOSTICS_METHOD, parseDiagnosticsParams, ({ params, signal }) => diagnostics(params, signal));
  }

  const toAgent = tap("->", log);
  const stdin = Writable.toWeb(agent.child.stdin) as WritableStream<Uint8Array>;
  toAgent.readable.pipeTo(stdin).catch(() => undefined);
  const fromAgent = (Readable.toWeb(agent.child.stdout) as ReadableStream<Uint8Array>).pipeThrough(tap("<-", log));
  // The same connection, seen through the stable entry's types as the rest of the extension is.
  const connection = app.connect(ndJsonStream(toAgent.writable, fromAgent)) as unknown as ClientConnection;
  void agent.exited.then(() => connection.close(new Error("the agent process exited")));

  const request: InitializeRequest = {
    protocolVersion: 1,
    clientInfo: CLIENT_INFO,
    clientCapabilities: {
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
      // Subagents as child sessions (stable since schema 1.34; named in the SDK's unstable types).
      subagents: SUBAGENTS_CAPABILITY,
      ...(diagnostics ? { _meta: { ...DIAGNOSTICS_META } } : {}),
    },
  };
  const initialize = await connection.agent.request(methods.agent.initialize, request);
  log.info(`connected to ${initialize.agentInfo?.name ?? "agent"} ${initialize.agentInfo?.version ?? ""}`);
  return { connection, initialize };
}
