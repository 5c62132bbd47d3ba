// Line diffs of an edit for the chat. Pure: no vscode.
import { DIFF_LIMITS, renderLongLines, type HtmlBudget } from "./longText";
import { escapeHtml } from "./markdown";

/** Above this many line pairs the middle is shown as removed-then-added, not aligned. */
const MAX_ALIGNED_CELLS = 1_000_000;

export type DiffLine = { kind: "del" | "add" | "same"; text: string };

/** A compact line diff: the common head and tail are dropped; in the changed middle, unchanged
 * lines are aligned (longest common subsequence) so a rename shows as the lines it touched. */
export function diffLines(oldText: string | null, newText: string): DiffLine[] {
  const before = oldText === null || oldText === "" ? [] : oldText.split("\n");
  const after = newText.split("\n");
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (
    tail < before.length - head &&
    tail < after.length - head &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  )
    tail++;
  const removed = before.slice(head, before.length - tail);
  const added = after.slice(head, after.length - tail);
  return removed.length * added.length <= MAX_ALIGNED_CELLS
    ? alignLines(removed, added)
    : [...removed.map((text) => ({ kind: "del" as const, text })), ...added.map((text) => ({ kind: "add" as const, text }))];
}

function lineHtml({ kind, text }: DiffLine): string {
  return kind === "same" ? ` ${escapeHtml(text)}` : `<span class="${kind}">${kind === "del" ? "-" : "+"}${escapeHtml(text)}</span>`;
}

/** The whole diff as HTML lines. */
export function renderDiff(oldText: string | null, newText: string): string {
  return diffLines(oldText, newText).map(lineHtml).join("\n");
}

/** The diff as a block of the chat: a long one collapsed (see `renderLongLines`). */
export function renderDiffBlock(oldText: string | null, newText: string, key: string, budget: HtmlBudget): string {
  const lines = diffLines(oldText, newText);
  const source = { count: lines.length, html: (i: number) => lineHtml(lines[i] ?? { kind: "same", text: "" }) };
  return renderLongLines(source, "diff-lines", key, DIFF_LIMITS, budget);
}

/** The two line lists as deletions, additions and shared lines, in order. */
export function alignLines(a: string[], b: string[]): DiffLine[] {
  const width = b.length + 1;
  const common = new Uint32Array((a.length + 1) * width); // common[i][j]: LCS of a[i:], b[j:]
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i * width + j] =
        a[i] === b[j]
          ? (common[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(common[(i + 1) * width + j] ?? 0, common[i * width + j + 1] ?? 0);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push({ kind: "same", text: a[i++] ?? "" });
      j++;
    } else if (i < a.length && (j === b.length || (common[(i + 1) * width + j] ?? 0) >= (common[i * width + j + 1] ?? 0))) {
      lines.push({ kind: "del", text: a[i++] ?? "" }); // on a tie, what goes comes before what comes
    } else {
      lines.push({ kind: "add", text: b[j++] ?? "" });
    }
  }
  return lines;
}
