// Ties the commands Heron runs in VS Code terminals to the tool calls that show them: a terminal
// is named after the tool call that shows it, and the call's card is drawn again as the
// command prints and when it exits (at most every `REFRESH_MS`).
import { Batcher } from "./batcher";
import { terminalName } from "./text";
import { terminalCalls, type Item } from "./transcript";

/** A card showing a running command is drawn again at most this often. */
export const REFRESH_MS = 150;

export interface CommandTerminals {
  name(terminalId: string, name: string): void;
  onDidChange(listener: (terminalId: string) => void): { dispose(): void };
}

export class TerminalCards {
  private readonly changed: Batcher<string>;
  private readonly subscription: { dispose(): void };

  /** `itemsShowing`: the transcript's items that show these terminals; `redraw` draws items again. */
  constructor(
    private readonly terminals: CommandTerminals,
    itemsShowing: (terminalIds: ReadonlySet<string>) => Item[],
    redraw: (items: Item[]) => void,
    refreshMs = REFRESH_MS,
  ) {
    this.changed = new Batcher<string>(
      (id) => id,
      (ids) => {
        const items = itemsShowing(new Set(ids));
        if (items.length > 0) redraw(items);
      },
      refreshMs,
    );
    this.subscription = terminals.onDidChange((terminalId) => this.changed.add([terminalId]));
  }

  /** Items changed in the transcript: the terminals their tool calls show take the calls' titles. */
  itemsChanged(items: readonly Item[]): void {
    for (const { terminalId, title } of terminalCalls(items)) this.terminals.name(terminalId, terminalName(title));
  }

  dispose(): void {
    this.changed.clear();
    this.subscription.dispose();
  }
}
