// Heron's rewind, the protocol side: whether the agent offers it (`initialize`), and its two
// requests, `session/rewind` (back to before a prompt) and `session/edit_prompt` (back to before a
// prompt, then a new prompt in its place). Pure: no vscode, no connection; the session controller
// sends what these build and reads the answers through them.
import { randomUUID } from "node:crypto";
import type { ContentBlock, InitializeResponse, StopReason } from "@agentclientprotocol/sdk";

export const REWIND_METHOD = "session/rewind";
export const EDIT_PROMPT_METHOD = "session/edit_prompt";

/** What is put back besides the conversation: nothing, the files, or both. */
export type RestoreMode = "conversation" | "files" | "both";

/** `agentCapabilities.rewindSession`, read safely. */
export interface RewindSupport {
  /** `session/rewind` is there. */
  rewind: boolean;
  /** `session/edit_prompt` is there too. */
  editPrompt: boolean;
}

export const NO_REWIND: RewindSupport = { rewind: false, editPrompt: false };

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What the agent's `initialize` answer says of rewinding (`{"supported": true, "supportsEditPrompt": true}`). */
export function rewindSupport(initialize: InitializeResponse | null | undefined): RewindSupport {
  const capabilities: unknown = initialize?.agentCapabilities;
  if (!isObject(capabilities)) return NO_REWIND;
  const rewind = capabilities.rewindSession;
  if (!isObject(rewind) || rewind.supported !== true) return NO_REWIND;
  return { rewind: true, editPrompt: rewind.supportsEditPrompt === true };
}

/** A new prompt's id, chosen here and sent as `session/prompt`'s `messageId`. */
export function newMessageId(): string {
  return randomUUID();
}

function restoreMeta(restore: RestoreMode): { heron: { restore: RestoreMode } } {
  return { heron: { restore } };
}

export interface RewindParams {
  sessionId: string;
  toMessageId: string;
  _meta: { heron: { restore: RestoreMode } };
}

export function rewindParams(sessionId: string, toMessageId: string, restore: RestoreMode): RewindParams {
  return { sessionId, toMessageId, _meta: restoreMeta(restore) };
}

export interface EditPromptParams {
  sessionId: string;
  messageId: string;
  newContent: ContentBlock[];
  _meta: { heron: { restore: RestoreMode } };
}

export function editPromptParams(sessionId: string, messageId: string, newContent: ContentBlock[], restore: RestoreMode): EditPromptParams {
  return { sessionId, messageId, newContent, _meta: restoreMeta(restore) };
}

/** `session/rewind`'s answer. */
export interface Rewound {
  /** How many messages the conversation keeps. */
  remainingMessageCount: number;
  /** The id of the last message kept; null: none is left. */
  lastMessageId: string | null;
  /** What was done to the files, in a sentence; null: nothing was asked of them, or nothing to do. */
  files: string | null;
}

function invalid(method: string, what: string): Error {
  return new Error(`the agent's answer to ${method} ${what}`);
}

export function readRewound(result: unknown): Rewound {
  if (!isObject(result)) throw invalid(REWIND_METHOD, "is not an object");
  const count = result.remainingMessageCount;
  if (typeof count !== "number" || !Number.isInteger(count) || count < 0) throw invalid(REWIND_METHOD, "has no remainingMessageCount");
  const last = result.lastMessageId;
  const meta = isObject(result._meta) && isObject(result._meta.heron) ? result._meta.heron : {};
  return {
    remainingMessageCount: count,
    lastMessageId: typeof last === "string" && last !== "" ? last : null,
    files: typeof meta.files === "string" && meta.files.trim() !== "" ? meta.files : null,
  };
}

/** `session/prompt`'s and `session/edit_prompt`'s answer: how the turn stopped, and the prompt's id when the agent says it. */
export interface PromptAnswer {
  stopReason: StopReason;
  userMessageId: string | null;
}

const STOP_REASONS: ReadonlySet<string> = new Set(["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]);

export function readPromptAnswer(result: unknown, method = EDIT_PROMPT_METHOD): PromptAnswer {
  if (!isObject(result) || typeof result.stopReason !== "string" || !STOP_REASONS.has(result.stopReason)) {
    throw invalid(method, "has no stopReason");
  }
  return { stopReason: result.stopReason as StopReason, userMessageId: answeredMessageId(result) };
}

/** The prompt's id in a `session/prompt` answer (`userMessageId`); null when it has none. */
export function answeredMessageId(result: unknown): string | null {
  if (!isObject(result)) return null;
  const id = result.userMessageId;
  return typeof id === "string" && id !== "" ? id : null;
}

/**
 * Whether a failed `session/edit_prompt` failed in the new prompt's turn (the rewind was done:
 * the old prompt is gone) rather than before it (the rewind was refused or declined: nothing
 * changed). Heron's turn failures say what kind they are in `data.reason`; a refused rewind does not.
 */
export function failedInTurn(err: unknown): boolean {
  if (!isObject(err)) return false;
  const data = err.data;
  return isObject(data) && typeof data.reason === "string";
}
