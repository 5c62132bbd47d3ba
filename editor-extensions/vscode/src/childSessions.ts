// Child sessions (ACP subagents, stable since schema 1.34): their wire shapes and the reading of
// `session/update` params that carry them. Pure: no vscode.
//
// The bundled SDK (2.4.0) predates them. Its client checks every `session/update` against its
// schema before any handler; the unstable entry's schema (1.29, which connection.ts uses for
// that) knows `subagent_update` and `session_message`, but its parse leaves `{"type":"session"}`
// out of a tool call's content. So the params are read here as they came
// (`readSessionNotification`): the child-session kinds field by field, a tool call's content kept
// to the kinds the chat draws plus its links to sessions, every other update as it is.
import type {
  ContentBlock,
  SessionNotification,
  SessionUpdate,
  ToolCall,
  ToolCallContent,
  ToolCallUpdate,
} from "@agentclientprotocol/sdk";

/** `clientCapabilities.subagents`: the client registers children announced with `subagent_update`. */
export const SUBAGENTS_CAPABILITY = {};

/** Tool-call content that links a call to the session it works with (a subagent it runs). */
export interface SessionLink {
  type: "session";
  sessionId: string;
}

export type IncomingToolContent = ToolCallContent | SessionLink;

/** A child's work state, as its parent's `subagent_update` reports it. */
export interface ChildState {
  state: string; // "running" | "idle" | "requires_action" | "unknown"
  /** With `idle`: how its last work ended ("end_turn", "cancelled", "error", ...). */
  stopReason?: string | null;
  error?: { code?: number; message: string } | null;
}

/** Announces a child on its parent (before anything bears its id), then patches it. */
export interface SubagentUpdate {
  sessionUpdate: "subagent_update";
  sessionId: string;
  title?: string | null;
  description?: string | null;
  /** An object: what the client may do with the child (`cancel`); null: nothing. */
  capabilities?: { cancel?: object | null } | null;
  state?: ChildState | null;
}

/** A message between sessions (a child's task from its parent), on the session whose transcript shows it. */
export interface SessionMessage {
  sessionUpdate: "session_message";
  messageId: string;
  senderSessionId?: string | null;
  recipientSessionId?: string | null;
  content?: ContentBlock[] | null;
}

export interface SessionMessageChunk {
  sessionUpdate: "session_message_chunk";
  messageId: string;
  content: ContentBlock;
}

type WithLinks<T> = Omit<T, "content"> & { content?: IncomingToolContent[] | null };

/** What one `session/update` may carry: the SDK's kinds (a tool call's content with links), and the child-session ones. */
export type IncomingUpdate =
  | Exclude<SessionUpdate, { sessionUpdate: "tool_call" | "tool_call_update" }>
  | (WithLinks<ToolCall> & { sessionUpdate: "tool_call" })
  | (WithLinks<ToolCallUpdate> & { sessionUpdate: "tool_call_update" })
  | SubagentUpdate
  | SessionMessage
  | SessionMessageChunk;

export interface IncomingNotification extends Omit<SessionNotification, "update"> {
  update: IncomingUpdate;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function optionalString(value: unknown): string | null | undefined {
  if (value === undefined || value === null) return value;
  return typeof value === "string" ? value : undefined;
}

function invalid(what: string): Error {
  return new Error(`invalid session/update: ${what}`);
}

/** A content block is kept when it names its type; the chat draws the kinds it knows. */
function isBlock(value: unknown): value is ContentBlock {
  return isObject(value) && typeof value.type === "string";
}

/** One item of a tool call's content, or null to leave it out (as the SDK leaves out what it cannot read). */
function toolContent(value: unknown): IncomingToolContent | null {
  if (!isObject(value)) return null;
  switch (value.type) {
    case "session":
      return typeof value.sessionId === "string" && value.sessionId !== ""
        ? { type: "session", sessionId: value.sessionId }
        : null;
    case "content":
      return isBlock(value.content) ? (value as unknown as ToolCallContent) : null;
    case "diff":
      return typeof value.path === "string" && typeof value.newText === "string" && (value.oldText == null || typeof value.oldText === "string")
        ? (value as unknown as ToolCallContent)
        : null;
    case "terminal":
      return typeof value.terminalId === "string" ? (value as unknown as ToolCallContent) : null;
    default:
      return null;
  }
}

function childState(value: unknown): ChildState | null | undefined {
  if (value === undefined || value === null) return value;
  if (!isObject(value) || typeof value.state !== "string") return undefined; // unreadable: left as it was
  const state: ChildState = { state: value.state };
  const stopReason = optionalString(value.stopReason);
  if (stopReason !== undefined) state.stopReason = stopReason;
  if (isObject(value.error) && typeof value.error.message === "string") {
    state.error = { message: value.error.message, ...(typeof value.error.code === "number" ? { code: value.error.code } : {}) };
  }
  return state;
}

function subagentUpdate(update: Json): SubagentUpdate {
  if (typeof update.sessionId !== "string" || update.sessionId === "") throw invalid("subagent_update without a sessionId");
  const read: SubagentUpdate = { sessionUpdate: "subagent_update", sessionId: update.sessionId };
  const title = optionalString(update.title);
  if (title !== undefined) read.title = title;
  const description = optionalString(update.description);
  if (description !== undefined) read.description = description;
  if (update.capabilities === null) read.capabilities = null;
  else if (isObject(update.capabilities)) {
    const cancel = update.capabilities.cancel;
    read.capabilities = { cancel: isObject(cancel) ? cancel : null };
  }
  const state = childState(update.state);
  if (state !== undefined) read.state = state;
  return read;
}

function sessionMessage(update: Json): SessionMessage {
  if (typeof update.messageId !== "string") throw invalid("session_message without a messageId");
  const read: SessionMessage = { sessionUpdate: "session_message", messageId: update.messageId };
  const sender = optionalString(update.senderSessionId);
  if (sender !== undefined) read.senderSessionId = sender;
  const recipient = optionalString(update.recipientSessionId);
  if (recipient !== undefined) read.recipientSessionId = recipient;
  if (update.content === null) read.content = null;
  else if (Array.isArray(update.content)) read.content = update.content.filter(isBlock);
  return read;
}

function sessionMessageChunk(update: Json): SessionMessageChunk {
  if (typeof update.messageId !== "string" || !isBlock(update.content)) throw invalid("session_message_chunk without a messageId or content");
  return { sessionUpdate: "session_message_chunk", messageId: update.messageId, content: update.content };
}

/**
 * `session/update` params as the chat reads them (the SDK has already checked them against its
 * schema). A malformed envelope or child-session update throws: the connection logs it and drops
 * the notification, as it does with what the schema rejects.
 */
export function readSessionNotification(params: unknown): IncomingNotification {
  if (!isObject(params) || typeof params.sessionId !== "string" || !isObject(params.update)) throw invalid("no sessionId or update");
  const update = params.update;
  if (typeof update.sessionUpdate !== "string") throw invalid("no sessionUpdate");
  const meta = isObject(params._meta) ? { _meta: params._meta } : {};
  const read = (u: IncomingUpdate): IncomingNotification => ({ sessionId: params.sessionId as string, update: u, ...meta });
  switch (update.sessionUpdate) {
    case "subagent_update":
      return read(subagentUpdate(update));
    case "session_message":
      return read(sessionMessage(update));
    case "session_message_chunk":
      return read(sessionMessageChunk(update));
    case "tool_call":
    case "tool_call_update": {
      if (typeof update.toolCallId !== "string") throw invalid(`${update.sessionUpdate} without a toolCallId`);
      if (update.sessionUpdate === "tool_call" && typeof update.title !== "string") throw invalid("tool_call without a title");
      const content = Array.isArray(update.content)
        ? update.content.map(toolContent).filter((c): c is IncomingToolContent => c !== null)
        : update.content === null
          ? null
          : undefined;
      const title = optionalString(update.title);
      const rest: Json = { ...update, title: title ?? undefined, content };
      if (title === undefined && update.sessionUpdate === "tool_call_update") delete rest.title;
      if (content === undefined) delete rest.content;
      if (!isObject(update._meta)) delete rest._meta;
      return read(rest as unknown as IncomingUpdate);
    }
    default:
      return read(update as unknown as IncomingUpdate);
  }
}

/** The sessions a tool call's content links to. */
export function linkedSessions(content: readonly IncomingToolContent[] | null | undefined): string[] {
  return (content ?? []).flatMap((c) => (c.type === "session" ? [c.sessionId] : []));
}
