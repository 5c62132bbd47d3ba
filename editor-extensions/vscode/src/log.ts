/** Where the extension writes its diagnostics (an output channel in VS Code). */
export interface Log {
  info(message: string): void;
  /** One ACP message; only written when traffic tracing is on. */
  traffic(direction: "->" | "<-", line: string): void;
}

export const silentLog: Log = {
  info: () => undefined,
  traffic: () => undefined,
};
