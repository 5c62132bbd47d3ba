// Turns transcript items into safe HTML fragments for the chat webview. Pure: no vscode.
import { escapeHtml, renderMarkdown } from "./markdown";
import { childrenExpanded, type Item, type ToolContentView, type ToolItem } from "./transcript";

const STATUS_LABELS: Record<string, string> = {
  pending: "pending",
  in_progress: "running",
  completed: "done",
  failed: "failed",
};

/** Above this many line pairs the middle is shown as removed-then-added, not aligned. */
const MAX_ALIGNED_CELLS = 1_000_000;

type DiffLine = { kind: "del" | "add" | "same"; text: string };

/** A compact line diff: the common head and tail are dropped; in the changed middle, unchanged
 * lines are aligned (longest common subsequence) so a rename shows as the lines it touched. */
export function renderDiff(oldText: string | null, newText: string): string {
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
  const lines: DiffLine[] =
    removed.length * added.length <= MAX_ALIGNED_CELLS
      ? alignLines(removed, added)
      : [...removed.map((text) => ({ kind: "del" as const, text })), ...added.map((text) => ({ kind: "add" as const, text }))];
  return lines
    .map(({ kind, text }) =>
      kind === "same" ? ` ${escapeHtml(text)}` : `<span class="${kind}">${kind === "del" ? "-" : "+"}${escapeHtml(text)}</span>`,
    )
    .join("\n");
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

/** How a file path reads in the chat (the extension makes it workspace-relative). */
export type PathDisplay = (path: string) => string;

function renderToolContent(content: ToolContentView, displayPath: PathDisplay): string {
  switch (content.type) {
    case "text": // a tool's output (file contents, command output): shown as it is, not as markdown
      return `<pre class="tool-output">${escapeHtml(content.text)}</pre>`;
    case "diff":
      return `<div class="diff"><div class="diff-path">${escapeHtml(displayPath(content.path))}</div><pre>${renderDiff(
        content.oldText,
        content.newText,
      )}</pre></div>`;
    case "terminal":
      return `<div class="tool-text">Output in the terminal "${escapeHtml(content.terminalId)}".</div>`;
  }
}

function renderTool(item: ToolItem, displayPath: PathDisplay): string {
  const status = escapeHtml(item.status);
  const label = escapeHtml(STATUS_LABELS[item.status] ?? item.status);
  return (
    `<div class="tool status-${status}"><div class="tool-head">` +
    `<span class="badge">${label}</span> <span class="tool-title">${escapeHtml(item.title)}</span>` +
    `</div>${item.content.map((c) => renderToolContent(c, displayPath)).join("")}${renderChildren(item, displayPath)}</div>`
  );
}

/** "3 tool calls · 1 running · 1 failed": what a subagent did, readable while its list is hidden. */
export function childrenSummary(children: readonly ToolItem[]): string {
  const parts = [`${children.length} tool call${children.length === 1 ? "" : "s"}`];
  for (const status of ["pending", "in_progress", "failed"] as const) {
    const count = children.filter((c) => c.status === status).length;
    if (count > 0) parts.push(`${count} ${STATUS_LABELS[status] ?? status}`);
  }
  return parts.join(" · ");
}

/**
 * A subagent's tool calls inside the card of the call that runs it: a button that shows or hides
 * them (the webview flips it at once and tells the extension, which keeps the choice), then the
 * list of their cards. Shown while the call runs, hidden once it has completed, unless the user chose.
 */
function renderChildren(item: ToolItem, displayPath: PathDisplay): string {
  if (item.children.length === 0) return "";
  const expanded = childrenExpanded(item);
  const id = escapeHtml(item.id);
  return (
    `<div class="subagent">` +
    `<button type="button" class="children-toggle" data-tool="${id}" aria-expanded="${String(expanded)}" aria-controls="children-${id}">` +
    `<span class="chevron" aria-hidden="true"></span>Subagent · ${escapeHtml(childrenSummary(item.children))}</button>` +
    `<ul class="tool-children" id="children-${id}" aria-label="${escapeHtml(`Subagent tool calls: ${item.title}`)}"${expanded ? "" : " hidden"}>` +
    item.children.map((child) => `<li>${renderTool(child, displayPath)}</li>`).join("") +
    `</ul></div>`
  );
}

export function renderItem(item: Item, displayPath: PathDisplay = (path) => path): string {
  switch (item.kind) {
    case "user":
      return `<div class="msg user">${renderMarkdown(item.text)}</div>`;
    case "agent":
      return `<div class="msg agent">${renderMarkdown(item.text)}</div>`;
    case "thought":
      return `<details class="thought"><summary>Thinking</summary>${renderMarkdown(item.text)}</details>`;
    case "tool":
      return renderTool(item, displayPath);
    case "plan":
      return `<div class="plan"><div class="plan-head">Plan</div><ul>${item.entries
        .map((e) => `<li class="plan-${escapeHtml(e.status)}">${escapeHtml(e.content)}</li>`)
        .join("")}</ul></div>`;
    case "notice":
      return `<div class="notice notice-${escapeHtml(item.severity)}"><strong>${escapeHtml(
        item.title,
      )}</strong> ${renderMarkdown(item.description)}</div>`;
  }
}
