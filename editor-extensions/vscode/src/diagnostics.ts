// `_heron/diagnostics`, Heron's ACP extension method for the editor's own diagnostics: its wire
// shapes, its params read from the wire, and the pure translation of VS Code diagnostics. No
// vscode here (the handler that reads them is diagnosticsHandler.ts).
import { isAbsolute, relative, resolve, sep } from "node:path";
import { RequestError } from "@agentclientprotocol/sdk/unstable"; // as connection.ts: one copy of the SDK

export const DIAGNOSTICS_METHOD = "_heron/diagnostics";

/** Merged into `initialize`'s `clientCapabilities._meta`: Heron asks only a client that says so. */
export const DIAGNOSTICS_META = { heron: { diagnostics: true } };

/** The longest settle asked for is honoured up to this (Heron asks for half its own wait). */
const MAX_SETTLE_MS = 30_000;

export interface DiagnosticsParams {
  sessionId: string;
  /** Absolute paths; undefined: every file with diagnostics in the workspace. */
  paths?: string[];
  /** > 0: the file was just written; give the language services up to this long to catch up. */
  settleMs: number;
}

export type WireSeverity = "error" | "warning" | "information" | "hint";

export interface WirePosition {
  line: number;
  character: number;
}

export interface WireDiagnostic {
  range: { start: WirePosition; end: WirePosition };
  severity: WireSeverity;
  message: string;
  source?: string;
  code?: string | number;
}

export interface WireFile {
  path: string;
  diagnostics: WireDiagnostic[];
}

export interface DiagnosticsResult {
  files: WireFile[];
}

/** What is read of a `vscode.Diagnostic` (which fits this shape). */
export interface EditorDiagnostic {
  range: { start: WirePosition; end: WirePosition };
  /** `vscode.DiagnosticSeverity`: Error = 0, Warning = 1, Information = 2, Hint = 3. */
  severity: number;
  message: string;
  source?: string | undefined;
  code?: string | number | { value: string | number; target: unknown } | undefined;
}

/** What is read of a `vscode.Uri`. */
export interface EditorUri {
  scheme: string;
  fsPath: string;
}

const SEVERITIES: readonly WireSeverity[] = ["error", "warning", "information", "hint"];

export function toWireDiagnostic(diagnostic: EditorDiagnostic): WireDiagnostic {
  const { start, end } = diagnostic.range;
  const wire: WireDiagnostic = {
    range: { start: { line: start.line, character: start.character }, end: { line: end.line, character: end.character } },
    severity: SEVERITIES[diagnostic.severity] ?? "error",
    message: diagnostic.message,
  };
  if (diagnostic.source) wire.source = diagnostic.source;
  const code = typeof diagnostic.code === "object" ? diagnostic.code.value : diagnostic.code;
  if (code !== undefined && code !== "") wire.code = code;
  return wire;
}

/** `path` (absolute) is one of the `roots` or below one. */
export function isInside(path: string, roots: readonly string[]): boolean {
  if (!isAbsolute(path)) return false;
  return roots.some((root) => {
    const rel = relative(resolve(root), resolve(path));
    return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
  });
}

/** `vscode.languages.getDiagnostics()`'s answer as the files inside `roots` that have any. */
export function toWireFiles(
  entries: readonly (readonly [EditorUri, readonly EditorDiagnostic[]])[],
  roots: readonly string[],
): WireFile[] {
  return entries
    .filter(([uri, diagnostics]) => uri.scheme === "file" && diagnostics.length > 0 && isInside(uri.fsPath, roots))
    .map(([uri, diagnostics]) => ({ path: uri.fsPath, diagnostics: diagnostics.map(toWireDiagnostic) }));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/** The request's params, or an invalid-params error for the agent. */
export function parseDiagnosticsParams(raw: unknown): DiagnosticsParams {
  if (!isRecord(raw) || typeof raw.sessionId !== "string") {
    throw RequestError.invalidParams(undefined, "sessionId must be a string");
  }
  const { sessionId, paths, settleMs = 0 } = raw;
  if (paths !== undefined && !isStringList(paths)) {
    throw RequestError.invalidParams(undefined, "paths must be a list of strings");
  }
  if (typeof settleMs !== "number" || !Number.isFinite(settleMs)) {
    throw RequestError.invalidParams(undefined, "settleMs must be a number");
  }
  const params: DiagnosticsParams = { sessionId, settleMs: Math.min(Math.max(settleMs, 0), MAX_SETTLE_MS) };
  if (paths !== undefined) params.paths = paths;
  return params;
}

/** Answers `_heron/diagnostics` for a session that works in `roots`. */
export interface DiagnosticsHandler {
  diagnostics(params: DiagnosticsParams, roots: readonly string[], signal: AbortSignal): Promise<DiagnosticsResult>;
}
