// Long blocks of lines (tool output, command output, diffs) for the chat, kept cheap for the
// webview: short ones are shown whole; long ones show their first and last lines and a
// "Show all" button that the webview flips without asking the extension, the rest of the text
// being already there, hidden; and no card carries more than a bounded amount of HTML: beyond
// it, the middle is left out and the block says how much. Pure: no vscode.
import { escapeHtml } from "./markdown";

/** Lines as HTML, produced on demand: only the lines shown are ever escaped. */
export interface LineSource {
  count: number;
  html(index: number): string;
}

export interface LongTextLimits {
  /** Shown whole up to this many lines and this much HTML. */
  maxLines: number;
  maxChars: number;
  /** Collapsed: at most this many first and last lines, each side at most `sideChars` of HTML. */
  head: number;
  tail: number;
  sideChars: number;
}

export const OUTPUT_LIMITS: LongTextLimits = { maxLines: 40, maxChars: 8_000, head: 15, tail: 5, sideChars: 4_000 };
/** A command's output: its end is what matters (and what changes while it runs). */
export const TERMINAL_LIMITS: LongTextLimits = { maxLines: 40, maxChars: 8_000, head: 5, tail: 20, sideChars: 6_000 };
export const DIFF_LIMITS: LongTextLimits = { maxLines: 400, maxChars: 64_000, head: 150, tail: 50, sideChars: 24_000 };

/** How much HTML of long blocks one card may carry, all its blocks (and nested cards') together. */
export const CARD_HTML_BUDGET = 200_000;
/** A single line longer than this is cut (said so at its end). */
export const LINE_CHARS = 10_000;

/** What is left of a card's HTML allowance; shared by the blocks rendered into one card. */
export class HtmlBudget {
  constructor(public remaining: number = CARD_HTML_BUDGET) {}
}

/** The lines of a text, escaped on demand; a final line end does not make an empty last line. */
export function textLines(text: string): LineSource {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  const escaped: (string | undefined)[] = []; // a line is measured, then joined: escaped once
  return { count: lines.length, html: (i) => (escaped[i] ??= escapeHtml(cutLine(lines[i] ?? ""))) };
}

function cutLine(line: string): string {
  if (line.length <= LINE_CHARS) return line;
  return `${line.slice(0, LINE_CHARS)} [… ${count(line.length - LINE_CHARS)} more characters]`;
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}

function plural(n: number, what: string): string {
  return `${count(n)} ${what}${n === 1 ? "" : "s"}`;
}

/** Lines from `from` on (or back from it, with `step` -1) while they fit in `chars`, at most
 * `max`, never reaching `end`; the first line is taken however long, unless `chars` is spent. */
function take(lines: LineSource, from: number, step: 1 | -1, max: number, chars: number, end: number): number[] {
  const taken: number[] = [];
  let used = 0;
  for (let i = from; chars > 0 && taken.length < max && (step === 1 ? i < end : i > end); i += step) {
    const size = lines.html(i).length + 1;
    if (taken.length > 0 && used + size > chars) break;
    used += size;
    taken.push(i);
  }
  return step === 1 ? taken : taken.reverse();
}

/** The lines' HTML, each followed by a line end. */
function join(lines: LineSource, indexes: number[]): string {
  return indexes.map((i) => `${lines.html(i)}\n`).join("");
}

/**
 * A `<pre class="{preClass}">` of the lines; long ones collapsed, with a `button.show-more`.
 * `key` names the block within the chat (the webview keeps it expanded across redraws).
 * Without `middle`, a long block is its head and tail only, with no button: for text still
 * growing and drawn again and again (a running command), whose middle is sent once it is final.
 */
export function renderLongLines(
  lines: LineSource,
  preClass: string,
  key: string,
  limits: LongTextLimits,
  budget: HtmlBudget,
  { middle: withMiddle = true } = {},
): string {
  if (lines.count <= limits.maxLines) {
    const whole = join(lines, Array.from({ length: lines.count }, (_, i) => i));
    if (whole.length <= limits.maxChars && whole.length <= budget.remaining) {
      budget.remaining -= whole.length;
      return `<pre class="${preClass}">${whole.slice(0, -1)}</pre>`;
    }
  }
  const head = take(lines, 0, 1, limits.head, limits.sideChars, lines.count);
  const tail = take(lines, lines.count - 1, -1, limits.tail, limits.sideChars, head.length - 1);
  const middleStart = head.length;
  const middleEnd = tail[0] ?? lines.count;
  const headHtml = join(lines, head);
  const tailHtml = join(lines, tail).slice(0, -1);
  budget.remaining -= headHtml.length + tailHtml.length;
  const hidden = middleEnd - middleStart;
  if (hidden === 0) return `<pre class="${preClass}">${headHtml}${tailHtml}</pre>`;
  const gap = `<span class="long-gap">… ${plural(hidden, "more line")} …\n</span>`;
  if (!withMiddle) return `<pre class="${preClass}">${headHtml}${gap}${tailHtml}</pre>`;
  // The middle, as much of it as the card may still carry: from its start and from its end.
  const half = Math.max(0, budget.remaining) / 2;
  const front = take(lines, middleStart, 1, hidden, half, middleEnd);
  const back = take(lines, middleEnd - 1, -1, hidden, half, middleStart + front.length - 1);
  const leftOut = hidden - front.length - back.length;
  const frontHtml = join(lines, front);
  const backHtml = join(lines, back);
  budget.remaining -= frontHtml.length + backHtml.length;
  const omitted = `[… ${plural(leftOut, "line")} left out: too long for the chat]\n`;
  if (leftOut === hidden) {
    return `<pre class="${preClass}">${headHtml}<span class="long-omitted">${omitted}</span>${tailHtml}</pre>`;
  }
  const middle =
    `<span class="long-middle" hidden>${frontHtml}` +
    `${leftOut > 0 ? `<span class="long-omitted">${omitted}</span>` : ""}${backHtml}</span>`;
  const shown = lines.count - leftOut;
  const label = leftOut > 0 ? `Show ${count(shown)} of ${plural(lines.count, "line")}` : `Show all ${plural(lines.count, "line")}`;
  return (
    `<div class="long" data-long="${escapeHtml(key)}"><pre class="${preClass}">${headHtml}` +
    `${gap}${middle}${tailHtml}</pre>` +
    `<button type="button" class="show-more" aria-expanded="false">${label}</button></div>`
  );
}
