// Collects changes and hands them on together, at most once per interval: a reply streamed in
// thousands of chunks, or a command printing thousands of lines, is drawn a few times a second
// rather than once per chunk. Each value is handed on once per batch (the latest added for its key).
// Adding nothing still counts as a change (the chat's usage line changes with no item), so the
// batch is then handed on empty.

export class Batcher<T> {
  private readonly pending = new Map<string, T>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly keyOf: (value: T) => string,
    private readonly deliver: (values: T[]) => void,
    private readonly intervalMs: number,
  ) {}

  add(values: readonly T[]): void {
    for (const value of values) this.pending.set(this.keyOf(value), value);
    if (this.timer === undefined) this.timer = setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Hands on what is pending now. */
  flush(): void {
    if (this.timer === undefined) return; // nothing added since the last batch
    clearTimeout(this.timer);
    this.timer = undefined;
    const values = [...this.pending.values()];
    this.pending.clear();
    this.deliver(values);
  }

  /** Drops what is pending (it is no longer to be shown). */
  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }
}
