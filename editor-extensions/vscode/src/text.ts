// Text helpers for the client-side fs and terminal methods. Pure: no vscode.

/** Lines `line` (1-based) .. `line + limit - 1` of `text`, line endings kept. */
export function sliceLines(text: string, line?: number | null, limit?: number | null): string {
  if ((line === undefined || line === null) && (limit === undefined || limit === null)) return text;
  const lines = text.split(/(?<=\n)/);
  const start = Math.max(0, (line ?? 1) - 1);
  const end = limit === undefined || limit === null ? lines.length : start + Math.max(0, limit);
  return lines.slice(start, end).join("");
}

/** Collects process output, keeping at most `limit` bytes (the newest), cut on a character boundary. */
export class OutputBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  private decoded: string | null = null; // text() until the next append
  truncated = false;

  constructor(private readonly limit: number | null) {}

  append(data: Buffer): void {
    this.decoded = null;
    this.chunks.push(data);
    this.size += data.length;
    if (this.limit !== null && this.size > this.limit) {
      const all = Buffer.concat(this.chunks);
      let start = all.length - this.limit;
      // Do not start in the middle of a UTF-8 sequence (continuation bytes are 10xxxxxx).
      while (start < all.length && ((all[start] ?? 0) & 0xc0) === 0x80) start++;
      const kept = all.subarray(start);
      this.chunks = [Buffer.from(kept)];
      this.size = kept.length;
      this.truncated = true;
    }
  }

  text(): string {
    return (this.decoded ??= Buffer.concat(this.chunks).toString("utf8"));
  }
}

/** VS Code shortens terminal names in its list anyway. */
export const TERMINAL_NAME_CHARS = 60;

/** A terminal name of at most `TERMINAL_NAME_CHARS` characters, on one line. */
export function terminalName(title: string): string {
  const name = `Heron: ${title.replace(/\s+/g, " ").trim()}`;
  return name.length <= TERMINAL_NAME_CHARS ? name : `${name.slice(0, TERMINAL_NAME_CHARS - 1)}…`;
}
